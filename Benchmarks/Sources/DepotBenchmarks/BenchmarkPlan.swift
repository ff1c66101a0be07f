/// What a run measures: the full matrix, or a tiny one that only proves the tool works (CI).
public struct BenchmarkPlan: Sendable {
    public var quick: Bool
    /// Item counts, each with the subscriber counts its fan-out is measured at.
    public var fanout: [(items: Int, subscribers: [Int])]
    public var warmUpRounds: Int
    /// Bytes one fan-out case delivers, which sets its number of rounds (between `minimumRounds` and 100).
    public var bytesPerFanoutCase: Int
    /// The fewest rounds of a fan-out case: with fewer, one slow round decides the p99.
    public var minimumRounds: Int
    public var rpcClients: [Int]
    /// `state` is measured at each of these item counts; `get` at the largest.
    public var rpcItems: [Int]
    public var rpcWarmUp: Double
    public var rpcSeconds: Double
    public var idleSubscriberSteps: [Int]
    public var memoryItems: Int
    public var stalledReaders: Int
    public var stalledStates: Int
    public var settle: Double
    public var startupItems: [Int]
    /// The item sizes depotd's start-up is measured at: the 20 MB collection (200 B items) and 1 KiB items.
    public var startupItemBytes: [Int]
    public var startupRuns: Int
    public var queueLimit: Int
    /// Item counts of the removal scenario, and the removals timed at each.
    public var removalItems: [Int]
    public var removals: Int
    /// Issue 13: item counts, each with the subscriber counts its optimistic-removal fan-out is measured at, in
    /// delta mode (and against the floor at the delta's size) and in snapshot mode where `snapshotBytesPerRound`
    /// allows.
    public var removalFanout: [(items: Int, subscribers: [Int])]
    public var removalFanoutRounds: Int
    /// The most bytes one snapshot-mode round may deliver (N × K × 200 B); larger cases are left out.
    public var snapshotBytesPerRound: Int
    public var stalledLargeItems: Int
    public var stalledLargeSubscribers: Int
    /// The removals a reader times in each phase beside the stalled subscribers: 300, so that a p99 is not the
    /// second-worst of 100 rounds (which moved from 1.4 to 9.9 ms between runs of one build).
    public var stalledLargeRemovals: Int
    public var resumeItems: Int
    public var resumeRemovals: Int
    /// Issue 14: item counts, each with the subscriber counts an optimistic removal is measured at, in delta mode,
    /// with no pipeline and with the subscribers spread over `BenchPipelines.filterSelect`.
    public var pipelineFanout: [(items: Int, subscribers: [Int])]
    /// Issue 28: item counts, each with its rounds, of an optimistic removal's cost as N grows, at `scalingSubscribers`
    /// delta-mode subscribers (more rounds where a round is short, so its CPU is measured over at least a second).
    public var scaling: [(items: Int, rounds: Int)]
    public var scalingSubscribers: Int
    /// Issue 28's stress test: `clients` readers calling `get` over `items` items, in windows that alternate between
    /// the collection idle and changing `changesPerSecond` times a second, `seconds` of each after `warmUp`.
    public var readsUnderChanges: ReadsUnderChangesScenario
    /// Issue 39: an optimistic put and patch as N grows (the N of `scaling`, at `scalingSubscribers`), a file's layouts
    /// at start-up and its first changes, and a batch against single puts.
    public var layouts: LayoutScenario
    public var batch: BatchScenario

    /// The scenarios: N ∈ {100, 1000} at K ∈ {1, 64, 1024}, N = 10,000 at K ∈ {1, 64}; C ∈ {1, 16, 64}.
    public static let full = BenchmarkPlan(
        quick: false,
        fanout: [(100, [1, 64, 1024]), (1000, [1, 64, 1024]), (10_000, [1, 64])],
        warmUpRounds: 2,
        bytesPerFanoutCase: 8 << 30,
        minimumRounds: 40,
        rpcClients: [1, 16, 64],
        rpcItems: [100, 1000],
        rpcWarmUp: 0.3,
        rpcSeconds: 1.5,
        idleSubscriberSteps: [64, 1024],
        memoryItems: 100,
        stalledReaders: 8,
        stalledStates: 10_000,
        settle: 0.5,
        startupItems: [0, 100_000],
        startupItemBytes: [BenchCollection.smallItemBytes, BenchCollection.itemBytes],
        startupRuns: 3,
        queueLimit: 256,
        removalItems: [10_000, 100_000],
        removals: 10,
        removalFanout: [(1000, [64, 1024]), (10_000, [64, 1024]), (100_000, [64, 1024])],
        removalFanoutRounds: 40,
        snapshotBytesPerRound: 2100 << 20,
        stalledLargeItems: 100_000,
        stalledLargeSubscribers: 1000,
        stalledLargeRemovals: 300,
        resumeItems: 100_000,
        resumeRemovals: 100,
        pipelineFanout: [(10_000, [256]), (100_000, [256])],
        scaling: [(1000, 400), (10_000, 200), (100_000, 40), (1_000_000, 10)],
        scalingSubscribers: 64,
        readsUnderChanges: ReadsUnderChangesScenario(items: 100_000, clients: 64, changesPerSecond: 10, warmUp: 1, seconds: 10),
        layouts: LayoutScenario(items: 1_000_000, itemBytes: 190, runs: 2, subscribers: 8, changes: 20),
        batch: BatchScenario(items: 100_000, batchSize: 1000, puts: 10, batches: 5)
    )

    /// A few seconds, even with debug binaries: proves every scenario runs, measures nothing worth keeping.
    public static let quickCheck = BenchmarkPlan(
        quick: true,
        fanout: [(100, [2])],
        warmUpRounds: 1,
        bytesPerFanoutCase: 1 << 20,
        minimumRounds: 5,
        rpcClients: [2],
        rpcItems: [100],
        rpcWarmUp: 0.05,
        rpcSeconds: 0.2,
        idleSubscriberSteps: [2],
        memoryItems: 100,
        stalledReaders: 2,
        stalledStates: 300,
        settle: 0.05,
        startupItems: [0, 1000],
        startupItemBytes: [BenchCollection.itemBytes],
        startupRuns: 1,
        queueLimit: 256,
        removalItems: [1000],
        removals: 3,
        removalFanout: [(100, [2])],
        removalFanoutRounds: 3,
        snapshotBytesPerRound: 1 << 20,
        stalledLargeItems: 1000,
        stalledLargeSubscribers: 4,
        stalledLargeRemovals: 3,
        resumeItems: 1000,
        resumeRemovals: 5,
        pipelineFanout: [(100, [4])],
        scaling: [(100, 3), (1000, 3)],
        scalingSubscribers: 2,
        readsUnderChanges: ReadsUnderChangesScenario(items: 1000, clients: 2, changesPerSecond: 10, warmUp: 0.05, seconds: 0.5),
        layouts: LayoutScenario(items: 1000, itemBytes: 190, runs: 1, subscribers: 2, changes: 3),
        batch: BatchScenario(items: 1000, batchSize: 10, puts: 2, batches: 1)
    )

    func rounds(items: Int, subscribers: Int) -> Int {
        min(100, max(minimumRounds, bytesPerFanoutCase / max(1, items * subscribers * BenchCollection.itemBytes)))
    }

    /// Snapshot-mode rounds of an optimistic-removal case: as many as delta mode's when small, fewer (at least
    /// 5) when each round delivers gigabytes.
    func snapshotRounds(items: Int, subscribers: Int) -> Int {
        let roundBytes = max(1, items * subscribers * BenchCollection.smallItemBytes)
        return min(removalFanoutRounds, max(quick ? 1 : 5, (8 << 30) / roundBytes))
    }

    var fanoutCaseCount: Int { fanout.reduce(0) { $0 + $1.subscribers.count } }
}
