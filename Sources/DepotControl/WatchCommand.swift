import ArgumentParser
import DepotClient
import DepotJSON
import DepotOperators
import DepotPlatform
import DepotWire

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Subscribe and print every state until interrupted.",
        discussion: """
            Prints a status line per state; with --json, each state as one line of JSON (NDJSON), so \
            `depotctl watch --json | jq .seq` works. When this watcher falls behind and states are skipped, \
            a note goes to stderr (and the status line says so). The watch ends after --count states, or when \
            whoever reads its output goes away (`depotctl watch --json | head -1` exits 0), or with status 3 \
            when depotd closes the connection — unless --follow, which reconnects (100 ms to 5 s apart, jittered) \
            and resumes after the last state printed when it can.

            With --delta, subscribes in delta mode and prints each notification's params as one line of JSON: \
            the state (with count) and, instead of its items whenever smaller, the delta from the last success \
            state printed. With --since EPOCH:SEQ (the epoch and seq of the last state a previous watch printed), \
            resumes after it: stderr says whether it resumed or starts again from the current state.

            With a pipeline (--pipeline NAME, or operators as JSON, or the short options below), prints the states \
            it lets out: `depotctl watch --where '/types contains "fire"' --select /name --throttle 1s`. \
            --print-pipeline prints the operators the short options make, to store them with \
            `depotctl pipeline put`. A change to a named pipeline is noted on stderr; its deletion ends the watch \
            (exit 1).
            """
    )

    @OptionGroup var options: ConnectionOptions

    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions

    @Flag(help: "Delta mode: print each notification's params (state, and delta when there is one) as NDJSON.")
    var delta = false

    @Option(
        help: ArgumentHelp(
            "Resume after this state: its epoch and seq, as a State or heartbeat names them.", valueName: "epoch:seq"),
        transform: WatchCommand.resumePoint(_:))
    var since: ResumePoint?

    @Flag(
        help:
            "When depotd goes away (a restart), reconnect with backoff and go on, resuming after the last state printed where depotd still keeps what came since; stderr says so."
    )
    var follow = false

    @Option(help: ArgumentHelp("Stop after printing this many states (the first is the current one).", valueName: "n"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1; found \(count)") }
    }

    static func resumePoint(_ text: String) throws -> ResumePoint {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let seq = Int(parts[1]), seq >= 0 else {
            throw ValidationError("--since must be EPOCH:SEQ, the epoch and seq of a state (e.g. 9f2c4e1a7b3d5860:42); found \"\(text)\"")
        }
        return ResumePoint(epoch: String(parts[0]), seq: seq)
    }

    func run() async throws {
        let pipeline = try pipelineOptions.reference()
        if pipelineOptions.printPipeline {
            Output.line(pipeline?.json.prettyPrinted() ?? "[]")
            return
        }
        let request = SubscribeRequest(mode: delta ? .delta : .snapshot, since: since, pipeline: pipeline)
        // The watch ends when its reader does (`depotctl watch | head -1`), even while no state comes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await watch(request) }
            group.addTask { await OutputReader.gone() }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Subscribes and prints until the watch is over; with --follow, subscribes again each time depotd goes away,
    /// after the last state printed when the daemon still keeps what came since.
    private func watch(_ first: SubscribeRequest) async throws {
        let path = try options.socketPath()
        var request = first
        var progress = Progress()
        var attempt = 0
        var generator = SystemRandomNumberGenerator()
        while true {
            let subscription: DepotSubscription
            do {
                let connection = try await DepotConnection.connect(to: path)
                subscription = try await options.answer(from: connection) { [request] () async throws(DepotClientError) in
                    try await connection.subscribe(request)
                }
            } catch let error as DepotClientError {
                guard follow else {
                    Output.error(error)
                    throw ExitCode(ExitStatus.unavailable)
                }
                let delay = Self.reconnection.delay(afterFailures: attempt, using: &generator)
                if attempt == 0 { Output.notice("\(error.description); trying again (every \(Self.reconnection.cap) at most)") }
                attempt += 1
                try await Task.sleep(for: delay)
                continue
            }
            if let since = request.since {
                let subscribed = subscription.subscribed
                Output.notice(
                    subscribed.resumed
                        ? "\(attempt > 0 ? "reconnected; " : "")resumed after \(since.epoch):\(since.seq); the current state is seq \(subscribed.seq)"
                        : "\(attempt > 0 ? "reconnected; " : "")cannot resume after \(since.epoch):\(since.seq) (another daemon run, or states no longer kept); starting again from the current state, seq \(subscribed.seq)"
                )
            } else if attempt > 0 {
                Output.notice("reconnected; starting from the current state, seq \(subscription.subscribed.seq)")
            }
            attempt = 0
            if try await printStates(subscription, progress: &progress) { return }
            guard follow, !Task.isCancelled else {
                if !Task.isCancelled { Output.error("depotd closed the connection") }
                throw ExitCode(ExitStatus.unavailable)
            }
            Output.notice("depotd closed the connection; reconnecting")
            request.since = progress.last
            attempt = 1
            try await Task.sleep(for: Self.reconnection.delay(afterFailures: 0, using: &generator))
        }
    }

    /// What has been printed: how many states, and the last one's place, to resume after.
    private struct Progress {
        var printed = 0
        var last: ResumePoint?
    }

    /// 100 ms doubling to 5 s, with full jitter, so watchers of a restarted daemon do not all come back in the same
    /// instant.
    static let reconnection = ReconnectBackoff(firstWindow: .milliseconds(100), cap: .seconds(5))

    /// Prints each notification until the subscription ends (false: depotd went away), or --count states are
    /// printed (true).
    private func printStates(_ subscription: DepotSubscription, progress: inout Progress) async throws -> Bool {
        for await change in subscription {
            if let ended = change.ended {
                Output.error("the subscription ended: \(ended.reason)")
                throw ExitCode(ExitStatus.remoteError)
            }
            if change.pipelineChanged {
                Output.error("the pipeline changed; this state is the current one through it")
            }
            if change.skipped > 0, options.json || delta {
                Output.error("skipped \(change.skipped) states: this watcher fell behind")
            }
            if delta {
                Output.line(change.params.jsonText)
            } else if options.json {
                Output.line(change.state.jsonText)
            } else {
                Output.line(StateFormatter.statusLine(change.state, skipped: change.skipped))
            }
            progress.printed += 1
            if let epoch = change.state[StateMember.epoch]?.stringValue, let seq = change.state[StateMember.seq]?.numberValue?.intValue {
                progress.last = ResumePoint(epoch: epoch, seq: seq)
            }
            if let count, progress.printed >= count { return true }
        }
        return false
    }
}
