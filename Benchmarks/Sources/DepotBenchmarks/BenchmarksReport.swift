import Foundation

/// BENCHMARKS.md: the run's tables, each depotd figure with its ratio to the floor and to Redis, and the
/// targets met or not. `history` (benchmarks/history.md, kept by hand: what was changed in depotd to meet a
/// target, with before and after) is included as it is.
public struct BenchmarksReport {
    public var results: BenchmarkResults
    public var history: String?
    public var command: String

    public init(results: BenchmarkResults, history: String?, command: String) {
        self.results = results
        self.history = history
        self.command = command
    }

    public var markdown: String {
        var out = "# Benchmarks\n\n"
        out += "Written by `\(command)` (see README, \"Benchmarks\"); the raw figures are in `benchmarks/results.json`. "
        out += "depotd, the floor (a minimal fan-out writer with no JSON work, `depot-bench floor`) and Redis (PUBLISH/SUBSCRIBE, GET) "
        out += "ran on Unix sockets on this machine, measured by the same client code: plain sockets read by epoll threads, "
        out += "each message timestamped when its last byte was read, only its first bytes looked at (to find its `seq`).\n\n"
        if results.quick {
            out += "**A quick check (`--quick`): tiny sizes, few samples; these figures prove the tool runs and mean nothing.**\n\n"
        }
        for note in results.notes { out += "**Note:** \(note)\n\n" }
        out += machine
        out += targets
        out += fanout
        out += rpc
        out += memory
        out += startup
        out += removal
        out += subscriptions
        out += pipelines
        out += scaling
        out += writes
        if let history, !history.isEmpty {
            out += history.hasSuffix("\n") ? history : history + "\n"
        }
        return out
    }

    // MARK: Sections

    private var machine: String {
        let m = results.machine
        return """
            ## Machine

            | | |
            |---|---|
            | CPU | \(m.cpu) |
            | Cores | \(m.cores) |
            | Memory | \(m.memory) |
            | Kernel | \(m.kernel) |
            | Swift | \(m.swift) |
            | Redis | \(m.redis) |
            | Date | \(m.date) |


            """
    }

    private var targets: String {
        var rows: [String] = []
        let maxK = results.fanout.map(\.subscribers).max() ?? 0
        for items in Set(results.fanout.filter { $0.subscribers == maxK }.map(\.items)).sorted() {
            let depotd = fanoutFigure("depotd", items, maxK)
            if let depotd, let floor = fanoutFigure("floor", items, maxK) {
                rows.append(
                    row(
                        "Fan-out, N=\(items), K=\(maxK): p99 ≤ 2× the floor's",
                        "\(us(depotd.latency.p99)) vs. 2 × \(us(floor.latency.p99))", depotd.latency.p99 <= 2 * floor.latency.p99))
            }
            if let depotd, let redis = fanoutFigure("Redis", items, maxK) {
                rows.append(
                    row(
                        "Fan-out, N=\(items), K=\(maxK): deliveries/s ≥ Redis's",
                        "\(rate(depotd.deliveriesPerSecond)) vs. \(rate(redis.deliveriesPerSecond))",
                        depotd.deliveriesPerSecond >= redis.deliveriesPerSecond))
            }
        }
        let maxC = results.rpc.map(\.clients).max() ?? 0
        for items in Set(results.rpc.filter { $0.method == .state }.map(\.items)).sorted() {
            if let depotd = rpcFigure("depotd", .state, items, maxC), let redis = rpcFigure("Redis", .state, items, maxC) {
                rows.append(
                    row(
                        "`state`, N=\(items), C=\(maxC): req/s ≥ 0.8× Redis GET",
                        "\(rate(depotd.requestsPerSecond)) vs. 0.8 × \(rate(redis.requestsPerSecond))",
                        depotd.requestsPerSecond >= 0.8 * redis.requestsPerSecond))
            }
        }
        if let idle = results.idleMemory.filter({ $0.system == "depotd" }).max(by: { $0.subscribers < $1.subscribers }) {
            rows.append(
                row(
                    "≤ 16 KiB RSS per idle subscriber (K=\(idle.subscribers))", String(format: "%.1f KiB", idle.kibPerSubscriber),
                    idle.kibPerSubscriber <= 16))
        }
        if let stalled = results.stalledSubscriber.first(where: \.stalled) {
            // What the stalled subscriber costs: its phase's growth over the baseline phase's.
            let baseline = results.stalledSubscriber.first { !$0.stalled }?.growthKiB ?? 0
            let cost = stalled.growthKiB - baseline
            rows.append(
                row(
                    "A stalled subscriber grows memory ≤ its queue bound",
                    "\(cost) KiB (\(stalled.growthKiB) KiB, less \(baseline) KiB without it) vs. \(stalled.queueBoundKiB) KiB",
                    cost <= stalled.queueBoundKiB))
        }
        rows += subscriptionTargets
        rows += pipelineTargets
        rows += scalingTargets
        rows += writesTargets
        for figure in results.startup where figure.system == "depotd" && figure.items >= 100_000 {
            let origin = figure.fromCache == true ? "from the cache" : "from the file"
            let raw = figure.rawReadMilliseconds.map { " (raw read of the same bytes: \(ms($0)))" } ?? ""
            let items = "\(figure.items) items of \(bytes(figure.itemBytes ?? 1024))"
            if let first = figure.firstStateMilliseconds {
                rows.append(row("\(items) reach the first subscriber ≤ 150 ms after start, \(origin)", ms(first) + raw, first <= 150))
            }
            if let load = figure.loadMilliseconds {
                rows.append(row("A `load` of \(items) ≤ 150 ms", ms(load) + raw, load <= 150))
            }
        }
        guard !rows.isEmpty else { return "" }
        return "## Targets\n\n| Target | Measured | Met |\n|---|---|---|\n" + rows.joined() + "\n"
    }

    private var fanout: String {
        guard !results.fanout.isEmpty else { return "" }
        var out = """
            ## 1. Fan-out

            One state change, delivered to K subscribers: latency per subscriber from the trigger to the whole message \
            received. depotd's trigger is `load`: depotd publishes `loading`, reads and parses its file of N items and \
            publishes `success` with them, the state measured; so depotd's time includes reading and parsing the \
            file (an optimistic `remove` would skip that, but it then publishes a second state of N items while the \
            first is still going out). Redis's trigger is a PUBLISH of depotd's encoding of the same state (so its time \
            includes sending the payload to Redis), the floor's a short command after which it writes a line of the \
            size of depotd's notification. Deliveries/s: all deliveries divided by the summed time from each trigger \
            to its last delivery. Ratios are depotd's figure divided by the reference's (for latency lower is better, \
            for rates higher is better).

            | N | K | System | Rounds | Message | p50 | p99 | max | Deliveries/s | MB/s | p99 ÷ floor | p99 ÷ Redis | Deliv/s ÷ floor | Deliv/s ÷ Redis |
            |---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for figure in results.fanout {
            let floor = fanoutFigure("floor", figure.items, figure.subscribers)
            let redis = fanoutFigure("Redis", figure.items, figure.subscribers)
            let isDepotd = figure.system == "depotd"
            out += "| \(figure.items) | \(figure.subscribers) | \(figure.system) | \(figure.rounds) | \(bytes(figure.messageBytes)) | "
            out += "\(us(figure.latency.p50)) | \(us(figure.latency.p99)) | \(us(figure.latency.max)) | "
            out += "\(rate(figure.deliveriesPerSecond)) | \(String(format: "%.0f", figure.bytesPerSecond / 1e6)) | "
            out += isDepotd ? "\(ratio(figure.latency.p99, floor?.latency.p99)) | \(ratio(figure.latency.p99, redis?.latency.p99)) | " : "| | "
            out +=
                isDepotd
                ? "\(ratio(figure.deliveriesPerSecond, floor?.deliveriesPerSecond)) | \(ratio(figure.deliveriesPerSecond, redis?.deliveriesPerSecond)) |\n"
                : "| |\n"
        }
        return out + "\n"
    }

    private var rpc: String {
        guard !results.rpc.isEmpty else { return "" }
        var out = """
            ## 2. RPC

            C clients, each sending its next request as soon as the whole answer is in, for \
            \(String(format: "%.1f", results.rpc[0].seconds)) s after a warm-up. depotd answers `state` (a state of N \
            items) and `get` (one item); Redis answers GET of a value of the same size (depotd's state, one item); the \
            floor answers a line of the size of depotd's answer.

            | Method | N | C | System | Answer | req/s | p50 | p99 | req/s ÷ floor | req/s ÷ Redis | p99 ÷ floor | p99 ÷ Redis |
            |---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for figure in results.rpc {
            let floor = rpcFigure("floor", figure.method, figure.items, figure.clients)
            let redis = rpcFigure("Redis", figure.method, figure.items, figure.clients)
            out += "| `\(figure.method.rawValue)` | \(figure.items) | \(figure.clients) | \(figure.system) | \(bytes(figure.answerBytes)) | "
            out += "\(rate(figure.requestsPerSecond)) | \(us(figure.latency.p50)) | \(us(figure.latency.p99)) | "
            if figure.system == "depotd" {
                out +=
                    "\(ratio(figure.requestsPerSecond, floor?.requestsPerSecond)) | \(ratio(figure.requestsPerSecond, redis?.requestsPerSecond)) | "
                out += "\(ratio(figure.latency.p99, floor?.latency.p99)) | \(ratio(figure.latency.p99, redis?.latency.p99)) |\n"
            } else {
                out += "| | | |\n"
            }
        }
        return out + "\n"
    }

    private var memory: String {
        guard !results.idleMemory.isEmpty || !results.stalledSubscriber.isEmpty else { return "" }
        var out = """
            ## 3. Memory

            Resident memory (VmRSS from /proc/PID/status), with N=\(results.stalledSubscriber.first?.items ?? 0) items \
            loaded: idle, then with K idle subscribers (each has received the current state).

            | System | Idle | K | With K subscribers | KiB per subscriber | ÷ floor | ÷ Redis |
            |---|---:|---:|---:|---:|---:|---:|

            """
        for figure in results.idleMemory {
            let floor = results.idleMemory.first { $0.system == "floor" && $0.subscribers == figure.subscribers }
            let redis = results.idleMemory.first { $0.system == "Redis" && $0.subscribers == figure.subscribers }
            out +=
                "| \(figure.system) | \(figure.idleKiB) KiB | \(figure.subscribers) | \(figure.withSubscribersKiB) KiB | \(String(format: "%.1f", figure.kibPerSubscriber)) | "
            out +=
                figure.system == "depotd"
                ? "\(ratio(figure.kibPerSubscriber, floor?.kibPerSubscriber)) | \(ratio(figure.kibPerSubscriber, redis?.kibPerSubscriber)) |\n"
                : "| |\n"
        }
        if !results.stalledSubscriber.isEmpty {
            out += """

                depotd while R subscribers read S states (pipelined `load` and `wipe`: loading, success, idle) and one \
                subscriber with a 4 KiB receive buffer never reads. Its queue holds at most \
                \(results.stalledSubscriber[0].queueLimit) states and its connection the one being written (a \
                large one: the write the socket refused), so the bound is the bytes of the newest \
                \(results.stalledSubscriber[0].queueLimit) states and of one success state, the large ones in \
                whole pages (shared \
                with the other subscribers while they are being sent to them, so each is counted once). One depotd \
                process, three phases of S states: a warm-up (not shown) that brings the allocator to what the \
                load needs, then the baseline without a stalled subscriber (what the same load still costs once \
                warm), then with it; the stalled subscriber's cost is the difference of the two growths. \
                What depotd gives back once the stalled subscriber has read everything is shown too: a lower \
                bound of its cost (glibc keeps some of what is freed), steadier than the difference of growths. This \
                depotd runs with `GLIBC_TUNABLES=\(StalledSubscriberScenario.mallocTunables)`, so that freed \
                states go back to the kernel and its resident memory shows what it holds, not what glibc kept. \
                Afterwards the stalled subscriber reads: it must get the newest state, after a `skipped` count. \
                (Redis and the floor have no such bound to compare: Redis by default disconnects such a \
                subscriber at 32 MB of backlog.)

                | Stalled | R | S | Before | After | Growth | Growth over none stalled | Given back once it read | Queue bound | Within bound | Stalled then read |
                |---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|

                """
            let baseline = results.stalledSubscriber.first { !$0.stalled }?.growthKiB
            for figure in results.stalledSubscriber {
                let cost = figure.stalled ? baseline.map { figure.growthKiB - $0 } : nil
                let read =
                    figure.stalledMessagesRead.map {
                        "\($0) messages, \(figure.stalledSawNewest == true ? "ending with the newest state" : "WITHOUT the newest state")"
                    } ?? "—"
                out +=
                    "| \(figure.stalled ? "one" : "none") | \(figure.readers) | \(figure.states) | \(figure.beforeKiB) KiB | \(figure.afterKiB) KiB | "
                let within = (cost ?? figure.growthKiB) <= figure.queueBoundKiB
                out += "\(figure.growthKiB) KiB | \(cost.map { "\($0) KiB" } ?? "—") | \(figure.releasedKiB.map { "\($0) KiB" } ?? "—") | "
                out += "\(figure.queueBoundKiB) KiB | \(figure.stalled ? (within ? "yes" : "no") : "—") | \(read) |\n"
            }
        }
        return out + "\n"
    }

    private var startup: String {
        guard !results.startup.isEmpty else { return "" }
        var out = """
            ## 4. Start-up

            From launching the process to its socket accepting a connection, and (depotd) to a subscriber that \
            connected at once holding the whole first `success` state: loaded from its file source, or read from its \
            on-disk cache (the file removed, so the cached list is the only success; `--startup-strategy` \
            returnMultipleTimes, the default). Median of \(results.startup[0].runs) runs.

            `load` is a `load` of the same items on the running daemon (request to answer); "raw read" is the time the \
            benchmark takes to read the same bytes (the file, or the cache's files) into memory, for scale.

            | System | Items | To accepting | To the first state | `load` | Raw read | Accepting ÷ floor | Accepting ÷ Redis |
            |---|---|---:|---:|---:|---:|---:|---:|

            """
        let floor = results.startup.first { $0.system == "floor" }
        let redis = results.startup.first { $0.system == "Redis" }
        for figure in results.startup {
            let origin = figure.system != "depotd" ? "" : figure.fromCache == true ? " cached" : " from the file"
            let size = figure.system == "depotd" && figure.items > 0 ? " × \(bytes(figure.itemBytes ?? 1024))" : ""
            out +=
                "| \(figure.system) | \(figure.items)\(size)\(origin) | \(ms(figure.acceptingMilliseconds)) | \(figure.firstStateMilliseconds.map(ms) ?? "—") | "
            out += "\(figure.loadMilliseconds.map(ms) ?? "—") | \(figure.rawReadMilliseconds.map(ms) ?? "—") | "
            out +=
                figure.system == "depotd"
                ? "\(ratio(figure.acceptingMilliseconds, floor?.acceptingMilliseconds)) | \(ratio(figure.acceptingMilliseconds, redis?.acceptingMilliseconds)) |\n"
                : "| |\n"
        }
        return out + "\n"
    }

    private var removal: String {
        guard !results.removal.isEmpty else { return "" }
        var out = """
            ## 5. Removal

            An optimistic `remove` on a file source of N items of 1 KiB with the on-disk cache, no subscribers: the \
            time from sending it to its answer (the confirmed state: the file rewritten, the cache updated), and what \
            depotd read and wrote for it — its read and write calls (/proc/PID/io) less the request and the answer on \
            the socket, and the bytes handed to the storage layer. Medians over \(results.removal[0].removals) removals.

            | N | p50 | p99 | Read | Written | To storage | Answer |
            |---:|---:|---:|---:|---:|---:|---:|

            """
        for figure in results.removal {
            out += "| \(figure.items) | \(us(figure.toConfirmedState.p50)) | \(us(figure.toConfirmedState.p99)) | "
            out +=
                "\(bytes(figure.fileBytesRead)) | \(bytes(figure.fileBytesWritten)) | \(bytes(figure.storageBytesWritten)) | \(bytes(figure.answerBytes)) |\n"
        }
        return out + "\n"
    }

    /// Issue 13's targets: delta-mode removals at N = 100,000 against N = 1,000 and against the floor, and the
    /// stalled subscribers' cost.
    private var subscriptionTargets: [String] {
        var rows: [String] = []
        let items = results.removalFanout.map(\.items)
        guard let smallest = items.min(), let largest = items.max(), largest > smallest else { return stalledTargets }
        for subscribers in Set(results.removalFanout.map(\.subscribers)).sorted() {
            guard let large = removalFigure("depotd delta", largest, subscribers) else { continue }
            if let small = removalFigure("depotd delta", smallest, subscribers) {
                rows.append(
                    row(
                        "Delta-mode removal, K=\(subscribers): p99 at N=\(largest) ≤ 1.5× at N=\(smallest)",
                        "\(us(large.latency.p99)) vs. 1.5 × \(us(small.latency.p99))", large.latency.p99 <= 1.5 * small.latency.p99))
            }
            if let floor = removalFigure("floor (delta size)", largest, subscribers) {
                rows.append(
                    row(
                        "Delta-mode removal, N=\(largest), K=\(subscribers): p99 ≤ 2× the floor's for a message of its size",
                        "\(us(large.latency.p99)) vs. 2 × \(us(floor.latency.p99))", large.latency.p99 <= 2 * floor.latency.p99))
            }
        }
        return rows + stalledTargets
    }

    private var stalledTargets: [String] {
        results.stalledLarge.flatMap { stalled in
            let bound = 5 * stalled.encodedStateBytes / 1024
            return [
                row(
                    "\(stalled.stalled) stalled subscribers, \(bytes(stalled.encodedStateBytes)) collection, a \(stalled.readerMode)-mode reader: RSS growth ≤ 5× the encoded collection",
                    "\(stalled.growthKiB) KiB vs. \(bound) KiB", stalled.growthKiB <= bound),
                row(
                    "…and the \(stalled.readerMode)-mode reader's p99 ≤ 2× its p99 without them",
                    "\(us(stalled.readerWithStalled.p99)) vs. 2 × \(us(stalled.readerAlone.p99))",
                    stalled.readerWithStalled.p99 <= 2 * stalled.readerAlone.p99),
            ]
        }
    }

    private var subscriptions: String {
        guard !results.removalFanout.isEmpty || !results.stalledLarge.isEmpty || !results.resume.isEmpty else { return "" }
        var out = """
            ## 6. Subscriptions that scale (issue 13)

            **Optimistic removal, snapshot mode against delta mode.** depotd on a file source of N items of \
            \(BenchCollection.smallItemBytes) bytes, K subscribers in one mode; a round is one `remove` with `optimistic: true`, timed \
            from sending it to each subscriber holding the whole notification of the optimistic state (the source's \
            confirmation, published right after, ends the round). The floor sends each of the same K readers a line of \
            the delta notification's size. Snapshot mode is left out where one round would deliver more than \
            \(bytes(2100 << 20)) (N × K × 200 B), and runs fewer rounds where it delivers gigabytes.

            | N | K | System | Rounds | p50 | p99 | Max | Message |
            |---:|---:|---|---:|---:|---:|---:|---:|

            """
        for figure in results.removalFanout.sorted(by: { ($0.items, $0.subscribers, $0.system) < ($1.items, $1.subscribers, $1.system) }) {
            out += "| \(figure.items) | \(figure.subscribers) | \(figure.system) | \(figure.rounds) | \(us(figure.latency.p50)) | "
            out += "\(us(figure.latency.p99)) | \(us(figure.latency.max)) | \(bytes(figure.messageBytes)) |\n"
        }
        for stalled in results.stalledLarge {
            out += """

                **Stalled subscribers, a \(stalled.readerMode)-mode reader.** \(stalled.items) items of \(stalled.itemBytes) bytes (`state` answers \
                \(bytes(stalled.encodedStateBytes))); a \(stalled.readerMode)-mode reader times \(stalled.removals) optimistic removals alone, then \
                \(stalled.removals) more with \(stalled.stalled) snapshot-mode subscribers connected that read their `subscribe` \
                answer, then nothing (4 KiB receive buffers), each of which is owed every \(bytes(stalled.encodedStateBytes)) state. depotd's RSS is sampled after each \
                removal of both phases (with scenario 3b's glibc tunables, so it shows what depotd holds).

                | Reader | p50 | p99 | Max |
                |---|---:|---:|---:|
                | alone | \(us(stalled.readerAlone.p50)) | \(us(stalled.readerAlone.p99)) | \(us(stalled.readerAlone.max)) |
                | with \(stalled.stalled) stalled | \(us(stalled.readerWithStalled.p50)) | \(us(stalled.readerWithStalled.p99)) | \(us(stalled.readerWithStalled.max)) |

                RSS, highest after a removal: \(bytes(stalled.peakAloneKiB * 1024)) without the stalled subscribers, \
                \(bytes(stalled.peakKiB * 1024)) with them (\(bytes(stalled.beforeKiB * 1024)) once they had connected): they cost \
                \(bytes(stalled.growthKiB * 1024)), \(String(format: "%.1f", Double(stalled.growthKiB * 1024) / Double(max(1, stalled.encodedStateBytes))))× the \
                encoded collection.

                """
        }
        for resume in results.resume {
            out += """

                **Resume.** A delta-mode client holding the loaded state of \(resume.items) items reconnects after \
                \(resume.removals) optimistic removals (\(resume.missedStates) states). Resuming with `since` \
                (resumed: \(resume.resumed)): \(bytes(resume.resumeBytes)) in \(resume.resumeMessages) notifications, \
                \(ms(resume.resumeMilliseconds)); starting again (a resync, the current state in full): \
                \(bytes(resume.resyncBytes)), \(ms(resume.resyncMilliseconds)) — \(String(format: "%.0f", Double(resume.resyncBytes) / Double(max(1, resume.resumeBytes))))× the bytes.

                """
        }
        return out + "\n"
    }

    /// Issue 14's target: an optimistic removal with K subscribers over four pipelines within 2× of K without.
    private var pipelineTargets: [String] {
        let piped = results.pipelineFanout.filter { $0.system.hasSuffix("pipelines") }
        return piped.sorted { ($0.items, $0.subscribers) < ($1.items, $1.subscribers) }.compactMap { figure in
            guard
                let plain = results.pipelineFanout.first(where: {
                    !$0.system.hasSuffix("pipelines") && $0.items == figure.items && $0.subscribers == figure.subscribers
                })
            else { return nil }
            return row(
                "Removal, N=\(figure.items), K=\(figure.subscribers) over \(BenchPipelines.filterSelect.count) pipelines: p99 ≤ 2× with no pipeline",
                "\(us(figure.latency.p99)) vs. 2 × \(us(plain.latency.p99))", figure.latency.p99 <= 2 * plain.latency.p99)
        }
    }

    private var pipelines: String {
        guard !results.pipelineFanout.isEmpty else { return "" }
        var out = """
            ## 7. Pipelines (issue 14)

            **Optimistic removal through pipelines.** depotd on a file source of N items of \(BenchCollection.smallItemBytes) \
            bytes, K subscribers in delta mode: with no pipeline, and spread evenly over \(BenchPipelines.filterSelect.count) \
            distinct filter + select pipelines (each evaluated once per state for all its subscribers); a round is one \
            `remove` with `optimistic: true`, timed from sending it to each subscriber holding the whole notification of \
            the optimistic state. The pipelines:

            \(BenchPipelines.filterSelect.map { "- `\($0)`" }.joined(separator: "\n"))

            | N | K | System | Rounds | p50 | p99 | Max | Message |
            |---:|---:|---|---:|---:|---:|---:|---:|

            """
        for figure in results.pipelineFanout.sorted(by: { ($0.items, $0.subscribers, $0.system) < ($1.items, $1.subscribers, $1.system) }) {
            out += "| \(figure.items) | \(figure.subscribers) | \(figure.system) | \(figure.rounds) | \(us(figure.latency.p50)) | "
            out += "\(us(figure.latency.p99)) | \(us(figure.latency.max)) | \(bytes(figure.messageBytes)) |\n"
        }
        return out + "\n"
    }

    private func removalFigure(_ system: String, _ items: Int, _ subscribers: Int) -> FanoutFigures? {
        results.removalFanout.first { $0.system == system && $0.items == items && $0.subscribers == subscribers }
    }

    // MARK: Formatting

    private func fanoutFigure(_ system: String, _ items: Int, _ subscribers: Int) -> FanoutFigures? {
        results.fanout.first { $0.system == system && $0.items == items && $0.subscribers == subscribers }
    }

    private func rpcFigure(_ system: String, _ method: RPCMethodUnderTest, _ items: Int, _ clients: Int) -> RPCFigures? {
        results.rpc.first { $0.system == system && $0.method == method && $0.items == items && $0.clients == clients }
    }

    func row(_ target: String, _ measured: String, _ met: Bool) -> String {
        "| \(target) | \(measured) | \(met ? "**met**" : "**not met**") |\n"
    }

    func ratio(_ value: Double, _ reference: Double?) -> String {
        guard let reference, reference > 0 else { return "—" }
        return String(format: "%.2f×", value / reference)
    }

    func us(_ microseconds: Double) -> String {
        microseconds >= 10_000 ? String(format: "%.1f ms", microseconds / 1000) : String(format: "%.0f µs", microseconds)
    }

    func ms(_ milliseconds: Double) -> String {
        String(format: "%.1f ms", milliseconds)
    }

    func rate(_ perSecond: Double) -> String {
        perSecond >= 10_000 ? String(format: "%.0fk", perSecond / 1000) : String(format: "%.0f", perSecond)
    }

    func bytes(_ count: Int) -> String {
        count >= 1_048_576
            ? String(format: "%.1f MiB", Double(count) / 1_048_576)
            : count >= 1024 ? String(format: "%.0f KiB", Double(count) / 1024) : "\(count) B"
    }
}
