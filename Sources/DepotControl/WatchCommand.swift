import ArgumentParser
import DepotClient
import DepotJSON
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
            when depotd closes the connection.

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
        let connection = try await options.connect()
        let subscription: DepotSubscription
        do {
            subscription = try await connection.subscribe(SubscribeRequest(mode: delta ? .delta : .snapshot, since: since, pipeline: pipeline))
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
        if let since {
            let subscribed = subscription.subscribed
            Output.error(
                subscribed.resumed
                    ? "resumed after \(since.epoch):\(since.seq); the current state is seq \(subscribed.seq)"
                    : "cannot resume after \(since.epoch):\(since.seq) (another daemon run, or states no longer kept); starting again from the current state, seq \(subscribed.seq)"
            )
        }
        // The watch ends when its reader does (`depotctl watch | head -1`), even while no state comes.
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await printStates(subscription) }
            group.addTask { await OutputReader.gone() }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Prints each notification until the subscription ends, depotd goes away, or --count states are printed.
    private func printStates(_ subscription: DepotSubscription) async throws {
        var printed = 0
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
            printed += 1
            if let count, printed >= count { return }
        }
        if Task.isCancelled { return }
        Output.error("depotd closed the connection")
        throw ExitCode(ExitStatus.unavailable)
    }
}
