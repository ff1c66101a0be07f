import Foundation

/// One run: starts the servers, runs every scenario of the plan on depotd, the floor and Redis, stops the
/// servers, and returns the figures. Progress goes to stderr.
public struct BenchmarkRun {
    public var plan: BenchmarkPlan
    public var depotdBinary: String
    /// This tool's own binary, which serves as the floor (`depot-bench floor`).
    public var benchBinary: String
    /// nil when redis-server is not installed: the run then has no Redis figures and says so.
    public var redisBinary: String?
    /// A temporary directory for sockets and collections.
    public var directory: String
    /// The scenarios to run; all by default.
    public var scenarios: Set<Scenario>

    /// The scenarios: fan-out, RPC, memory and start-up (issue 6), the cost of a removal (issue 12), and
    /// subscriptions that scale (issue 13: delta mode, stalled subscribers of a large collection, resume).
    public enum Scenario: String, CaseIterable, Sendable {
        case fanout, rpc, memory, startup, removal, subscriptions, pipelines, scaling, writes
    }

    private let started = MonotonicClock.now()

    public init(
        plan: BenchmarkPlan, depotdBinary: String, benchBinary: String, redisBinary: String?, directory: String,
        scenarios: Set<Scenario> = Set(Scenario.allCases)
    ) {
        self.scenarios = scenarios
        self.plan = plan
        self.depotdBinary = depotdBinary
        self.benchBinary = benchBinary
        self.redisBinary = redisBinary
        self.directory = directory
    }

    public func run() throws -> BenchmarkResults {
        var results = BenchmarkResults(machine: .current(redisBinary: redisBinary), quick: plan.quick)
        if redisBinary == nil {
            results.notes.append("redis-server is not installed, so there are no Redis figures (install it: apt-get install redis-server).")
            progress("redis-server not found: running without Redis (apt-get install redis-server)")
        }
        let largest = plan.fanout.map(\.items).max() ?? 0
        let collection = BenchCollection(
            count: max(
                largest, plan.rpcItems.max() ?? 0, plan.memoryItems, plan.startupItems.max() ?? 0, plan.removalItems.max() ?? 0
            ))
        let pool = ReaderPool()
        defer { pool.shutdown() }

        if scenarios.contains(.fanout) || scenarios.contains(.rpc) {
            try runFanoutAndRPC(collection: collection, pool: pool, into: &results)
        }
        if scenarios.contains(.memory) {
            try runMemory(collection: collection, pool: pool, into: &results)
        }
        if scenarios.contains(.startup) {
            try runStartup(collection: collection, into: &results)
        }
        if scenarios.contains(.removal) {
            let directory = try subdirectory("removal")
            for items in plan.removalItems {
                progress("removal: depotd, \(plan.removals) optimistic removals from \(items) items in a file, with the cache")
                results.removal.append(
                    try RemovalScenario(items: items, removals: plan.removals).run(binary: depotdBinary, directory: directory, collection: collection)
                )
            }
        }
        if scenarios.contains(.subscriptions) {
            try runSubscriptions(pool: pool, into: &results)
        }
        if scenarios.contains(.pipelines) {
            try runPipelines(pool: pool, into: &results)
        }
        if scenarios.contains(.scaling) {
            try runScaling(pool: pool, into: &results)
        }
        if scenarios.contains(.writes) {
            try runWrites(pool: pool, into: &results)
        }
        progress("done")
        return results
    }

    // MARK: Scenario 6 (issue 13)

    private func runSubscriptions(pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let largest = max(plan.removalFanout.map(\.items).max() ?? 0, plan.stalledLargeItems, plan.resumeItems)
        let collection = BenchCollection(count: largest, itemBytes: BenchCollection.smallItemBytes)
        let delta = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("delta"), collection: collection, mode: "delta", trigger: .optimisticRemoval)
        let snapshot = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("snapshot"), collection: collection, mode: "snapshot", trigger: .optimisticRemoval)
        let floor = try FloorUnderTest(binary: benchBinary, directory: try subdirectory("delta-floor"), name: "floor (delta size)") { seq, items in
            BenchCollection.deltaNotificationBytes(seq: seq, count: items - 1, id: 1)
        }
        defer { ([delta, snapshot, floor] as [any SystemUnderTest]).forEach { $0.process.stop() } }
        for (items, subscriberCounts) in plan.removalFanout {
            for subscribers in subscriberCounts {
                progress(
                    "subscriptions: optimistic removal, N=\(items), K=\(subscribers): depotd delta and the floor, \(plan.removalFanoutRounds) rounds")
                let deltaScenario = FanoutScenario(
                    items: items, subscribers: subscribers, rounds: plan.removalFanoutRounds, warmUpRounds: plan.warmUpRounds)
                results.removalFanout += try deltaScenario.run(on: [delta, floor], pool: pool)
                guard items * subscribers * BenchCollection.smallItemBytes <= plan.snapshotBytesPerRound || plan.quick else {
                    progress(
                        "subscriptions: snapshot mode left out at N=\(items), K=\(subscribers) (\((items * subscribers * BenchCollection.smallItemBytes) >> 20) MiB a round)"
                    )
                    continue
                }
                let rounds = plan.snapshotRounds(items: items, subscribers: subscribers)
                progress("subscriptions: optimistic removal, N=\(items), K=\(subscribers): depotd snapshot, \(rounds) rounds")
                let snapshotScenario = FanoutScenario(items: items, subscribers: subscribers, rounds: rounds, warmUpRounds: 1)
                results.removalFanout += try snapshotScenario.run(on: [snapshot], pool: pool)
            }
        }
        progress(
            "subscriptions: \(plan.stalledLargeSubscribers) stalled subscribers + 1 reader (snapshot, then delta mode), \(plan.stalledLargeItems) items, \(plan.stalledLargeRemovals) removals twice each"
        )
        for readerMode in ["snapshot", "delta"] {
            results.stalledLarge.append(
                try StalledLargeScenario(
                    items: plan.stalledLargeItems, stalled: plan.stalledLargeSubscribers, removals: plan.stalledLargeRemovals, readerMode: readerMode
                )
                .run(binary: depotdBinary, directory: try subdirectory("stalled-large-\(readerMode)"), collection: collection, pool: pool))
        }
        progress("subscriptions: resume after \(plan.resumeRemovals) removals of \(plan.resumeItems) items, against a resync")
        results.resume.append(
            try ResumeScenario(items: plan.resumeItems, removals: plan.resumeRemovals)
                .run(binary: depotdBinary, directory: try subdirectory("resume"), collection: collection))
    }

    // MARK: Scenario 8 (issue 28)

    /// An optimistic removal at N from 10³ to 10⁶ items of 200 bytes, K delta-mode subscribers: depotd (a file
    /// source with the on-disk cache) and the floor writing the same delta notification, interleaved, with depotd's
    /// CPU per removal (the optimistic state, the file rewritten, the cache's row, the confirmed state). Then the
    /// stress test: readers calling `get`, idle and while the collection changes.
    func runScaling(pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let largest = max(plan.scaling.map(\.items).max() ?? 0, plan.readsUnderChanges.items)
        let collection = BenchCollection(count: largest, itemBytes: BenchCollection.smallItemBytes)
        let delta = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("scaling"), collection: collection, mode: "delta", trigger: .optimisticRemoval)
        let floor = try FloorUnderTest(binary: benchBinary, directory: try subdirectory("scaling-floor"), name: "floor (delta size)") { seq, items in
            BenchCollection.deltaNotificationBytes(seq: seq, count: items - 1, id: 1)
        }
        defer { ([delta, floor] as [any SystemUnderTest]).forEach { $0.process.stop() } }
        results.scaling += try fanoutAcrossN("scaling: optimistic removal", on: [delta, floor], pool: pool)
        let stress = plan.readsUnderChanges
        progress(
            "scaling: \(stress.clients) clients calling get over \(stress.items) items, idle and changing \(Int(stress.changesPerSecond)) times a second in alternate windows, \(stress.seconds) s of each"
        )
        results.readsUnderChanges.append(
            try stress.run(binary: depotdBinary, directory: try subdirectory("reads-under-changes"), collection: collection, pool: pool))
    }

    /// `FanoutScenario` at each N and round count of `plan.scaling`, on depotd and the floor interleaved.
    private func fanoutAcrossN(_ what: String, on systems: [any SystemUnderTest], pool: ReaderPool) throws -> [FanoutFigures] {
        var figures: [FanoutFigures] = []
        for (items, rounds) in plan.scaling {
            progress("\(what), N=\(items), K=\(plan.scalingSubscribers): depotd delta and the floor, \(rounds) rounds")
            let scenario = FanoutScenario(items: items, subscribers: plan.scalingSubscribers, rounds: rounds, warmUpRounds: plan.warmUpRounds)
            figures += try scenario.run(on: systems, pool: pool)
        }
        return figures
    }

    // MARK: Scenario 9 (issue 39)

    /// Writes: an optimistic put and patch at N from 10³ to 10⁶ to K delta-mode subscribers, depotd (a file source
    /// with the on-disk cache) and the floor writing a notification of the same size, interleaved; a file's layouts at
    /// start-up, with the first changes after it; a batch of puts against single ones.
    func runWrites(pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let largest = plan.scaling.map(\.items).max() ?? 0
        let collection = BenchCollection(count: largest, itemBytes: BenchCollection.smallItemBytes)
        for (trigger, label) in [(DepotdUnderTest.Trigger.optimisticPut, "put"), (.optimisticPatch, "patch")] {
            let depotd = try DepotdUnderTest(
                binary: depotdBinary, directory: try subdirectory("writes-\(label)"), collection: collection, mode: "delta", trigger: trigger,
                name: "depotd delta \(label)")
            let floor = try FloorUnderTest(binary: benchBinary, directory: try subdirectory("writes-\(label)-floor"), name: "floor (\(label) size)") {
                seq, items in
                BenchCollection.changeNotificationBytes(seq: seq, count: items, itemBytes: BenchCollection.smallItemBytes)
            }
            defer { ([depotd, floor] as [any SystemUnderTest]).forEach { $0.process.stop() } }
            results.writeFanout += try fanoutAcrossN("writes: optimistic \(label)", on: [depotd, floor], pool: pool)
        }
        let layouts = plan.layouts
        let directory = try subdirectory("layouts")
        for (layout, stringIDs) in BenchLayout.allCases.map({ ($0, false) }) + [(BenchLayout.pythonDefault, true)] {
            progress(
                "writes: \(layouts.items) items of \(layouts.itemBytes) B, \(layout.rawValue)\(stringIDs ? ", string ids" : ""): start-up \(layouts.runs) times, then \(layouts.changes) puts to \(layouts.subscribers) delta subscribers"
            )
            results.layouts.append(try layouts.run(binary: depotdBinary, directory: directory, layout: layout, stringIDs: stringIDs, pool: pool))
        }
        let batch = plan.batch
        progress("writes: \(batch.puts) puts and \(batch.batches) applies of \(batch.batchSize) puts on \(batch.items) items in a file")
        results.batch.append(try batch.run(binary: depotdBinary, directory: try subdirectory("batch")))
    }

    // MARK: Scenario 7 (issue 14)

    private func runPipelines(pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let largest = plan.pipelineFanout.map(\.items).max() ?? 0
        let collection = BenchCollection(count: largest, itemBytes: BenchCollection.smallItemBytes)
        let plain = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("pipelines-none"), collection: collection, mode: "delta", trigger: .optimisticRemoval)
        let piped = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("pipelines-four"), collection: collection, mode: "delta",
            trigger: .optimisticRemoval, pipelines: BenchPipelines.filterSelect)
        defer { [plain, piped].forEach { $0.process.stop() } }
        for (items, subscriberCounts) in plan.pipelineFanout {
            for subscribers in subscriberCounts {
                progress(
                    "pipelines: optimistic removal, N=\(items), K=\(subscribers), delta mode: no pipeline, and \(BenchPipelines.filterSelect.count) pipelines, \(plan.removalFanoutRounds) rounds"
                )
                let scenario = FanoutScenario(
                    items: items, subscribers: subscribers, rounds: plan.removalFanoutRounds, warmUpRounds: plan.warmUpRounds)
                results.pipelineFanout += try scenario.run(on: [plain, piped], pool: pool)
            }
        }
    }

    // MARK: Scenarios 1 and 2

    private func runFanoutAndRPC(collection: BenchCollection, pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let references = try startReferences(collection: collection, tag: "")
        defer { references.forEach { $0.process.stop() } }
        var done = 0
        let itemCounts = Set((scenarios.contains(.fanout) ? plan.fanout.map(\.items) : []) + (scenarios.contains(.rpc) ? plan.rpcItems : [])).sorted()
        for items in itemCounts {
            let depotd = try DepotdUnderTest(binary: depotdBinary, directory: try subdirectory("depotd-\(items)"), collection: collection)
            defer { depotd.process.stop() }
            let systems: [any SystemUnderTest] = [depotd] + references
            for subscribers in scenarios.contains(.fanout) ? plan.fanout.first(where: { $0.items == items })?.subscribers ?? [] : [] {
                done += 1
                let scenario = FanoutScenario(
                    items: items,
                    subscribers: subscribers,
                    rounds: plan.rounds(items: items, subscribers: subscribers),
                    warmUpRounds: plan.warmUpRounds
                )
                progress(
                    "fan-out \(done)/\(plan.fanoutCaseCount): \(systems.map(\.name).joined(separator: ", ")), N=\(items), K=\(subscribers), \(scenario.rounds) rounds each, interleaved"
                )
                results.fanout += try scenario.run(on: systems, pool: pool)
            }
            guard scenarios.contains(.rpc), plan.rpcItems.contains(items) else { continue }
            for system in systems { try system.prepare(items: items) }
            var methods: [RPCMethodUnderTest] = [.state]
            if items == plan.rpcItems.max() { methods.append(.get) }
            for method in methods {
                for clients in plan.rpcClients {
                    let scenario = RPCScenario(method: method, items: items, clients: clients, warmUp: plan.rpcWarmUp, seconds: plan.rpcSeconds)
                    for system in systems {
                        progress("RPC: \(system.name) \(method.rawValue), N=\(items), C=\(clients)")
                        results.rpc.append(try scenario.run(on: system, pool: pool))
                    }
                }
            }
        }
    }

    // MARK: Scenario 3

    private func runMemory(collection: BenchCollection, pool: ReaderPool, into results: inout BenchmarkResults) throws {
        let depotd = try DepotdUnderTest(binary: depotdBinary, directory: try subdirectory("memory"), collection: collection)
        let references = try startReferences(collection: collection, tag: "memory-")
        let systems: [any SystemUnderTest] = [depotd] + references
        defer { systems.forEach { $0.process.stop() } }
        let idle = IdleMemoryScenario(subscriberSteps: plan.idleSubscriberSteps, settle: plan.settle)
        for system in systems {
            progress("memory: \(system.name) with \(plan.idleSubscriberSteps.map(String.init).joined(separator: ", then ")) idle subscribers")
            try system.prepare(items: plan.memoryItems)
            results.idleMemory += try idle.run(on: system, pool: pool)
        }

        progress(
            "memory: depotd, \(plan.stalledReaders) subscribers reading 3 × \(plan.stalledStates) states, the last \(plan.stalledStates) with one stalled"
        )
        let stalledDepotd = try DepotdUnderTest(
            binary: depotdBinary, directory: try subdirectory("stalled"), collection: collection,
            environment: ["GLIBC_TUNABLES": StalledSubscriberScenario.mallocTunables])
        defer { stalledDepotd.process.stop() }
        let scenario = StalledSubscriberScenario(
            items: plan.memoryItems, readers: plan.stalledReaders, states: plan.stalledStates,
            queueLimit: plan.queueLimit, settle: plan.settle
        )
        results.stalledSubscriber += try scenario.run(on: stalledDepotd, pool: pool)
    }

    // MARK: Scenario 4

    private func runStartup(collection: BenchCollection, into results: inout BenchmarkResults) throws {
        let directory = try subdirectory("startup")
        for itemBytes in plan.startupItemBytes {
            let sized =
                itemBytes == BenchCollection.itemBytes ? collection : BenchCollection(count: plan.startupItems.max() ?? 0, itemBytes: itemBytes)
            for items in plan.startupItems where items > 0 || itemBytes == plan.startupItemBytes[0] {
                for fromCache in [false, true] {
                    progress(
                        "start-up: depotd with \(items) items of \(itemBytes) B \(fromCache ? "cached" : "in its file"), \(plan.startupRuns) runs")
                    var figures = try StartupScenario(items: items, runs: plan.startupRuns)
                        .runDepotd(binary: depotdBinary, directory: directory, collection: sized, fromCache: fromCache)
                    figures.itemBytes = itemBytes
                    results.startup.append(figures)
                }
            }
        }
        progress("start-up: the floor and Redis")
        results.startup.append(
            try StartupScenario.runReference("floor", runs: plan.startupRuns) { run in
                let socket = directory + "/floor-\(run).sock"
                return (try FloorUnderTest.launch(binary: benchBinary, socketPath: socket), socket)
            })
        if let redisBinary {
            results.startup.append(
                try StartupScenario.runReference("Redis", runs: plan.startupRuns) { run in
                    let socket = directory + "/redis-\(run).sock"
                    return (try RedisUnderTest.launch(binary: redisBinary, socketPath: socket, directory: directory), socket)
                })
        }
    }

    // MARK: Helpers

    private func startReferences(collection: BenchCollection, tag: String) throws -> [any SystemUnderTest] {
        var references: [any SystemUnderTest] = [try FloorUnderTest(binary: benchBinary, directory: try subdirectory(tag + "floor"))]
        if let redisBinary {
            references.append(try RedisUnderTest(binary: redisBinary, directory: try subdirectory(tag + "redis"), collection: collection))
        }
        return references
    }

    private func subdirectory(_ name: String) throws -> String {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func progress(_ message: String) {
        let seconds = Double(MonotonicClock.now() - started) / 1e9
        FileHandle.standardError.write(Data(String(format: "[%6.1fs] %@\n", seconds, message).utf8))
    }
}
