/// Everything a run measured, as written to the JSON file: the raw figures behind BENCHMARKS.md.
public struct BenchmarkResults: Codable, Sendable {
    public var machine: MachineDescription
    public var quick: Bool
    public var fanout: [FanoutFigures] = []
    public var rpc: [RPCFigures] = []
    public var idleMemory: [IdleMemoryFigures] = []
    public var stalledSubscriber: [StalledSubscriberFigures] = []
    public var startup: [StartupFigures] = []
    public var removal: [RemovalFigures] = []
    /// Issue 13: optimistic removals fanned out in snapshot and delta mode (and the floor at the delta's size).
    public var removalFanout: [FanoutFigures] = []
    /// Issue 14: optimistic removals in delta mode, with no pipeline and with four distinct pipelines.
    public var pipelineFanout: [FanoutFigures] = []
    /// Issue 28: an optimistic removal's delta and CPU for N from 10³ to 10⁶, depotd and the floor.
    public var scaling: [FanoutFigures] = []
    /// Issue 28: `get` idle and while the collection changes.
    public var readsUnderChanges: [ReadsUnderChangesFigures] = []
    /// Issue 39: optimistic puts and patches as N grows, depotd and the floor.
    public var writeFanout: [FanoutFigures] = []
    /// Issue 39: start-up and the first changes, for each layout of one file.
    public var layouts: [LayoutFigures] = []
    /// Issue 39: single puts against batches of puts.
    public var batch: [BatchFigures] = []
    public var stalledLarge: [StalledLargeFigures] = []
    public var resume: [ResumeFigures] = []
    /// Systems that could not be measured, and why.
    public var notes: [String] = []

    enum CodingKeys: String, CodingKey {
        case machine, quick, fanout, rpc, idleMemory, stalledSubscriber, startup, removal, removalFanout, stalledLarge, resume, pipelineFanout,
            scaling, readsUnderChanges, writeFanout, layouts, batch, notes
    }

    /// Reads results of any earlier version: members added since are empty when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        machine = try container.decode(MachineDescription.self, forKey: .machine)
        quick = try container.decode(Bool.self, forKey: .quick)
        fanout = try container.decodeIfPresent([FanoutFigures].self, forKey: .fanout) ?? []
        rpc = try container.decodeIfPresent([RPCFigures].self, forKey: .rpc) ?? []
        idleMemory = try container.decodeIfPresent([IdleMemoryFigures].self, forKey: .idleMemory) ?? []
        stalledSubscriber = try container.decodeIfPresent([StalledSubscriberFigures].self, forKey: .stalledSubscriber) ?? []
        startup = try container.decodeIfPresent([StartupFigures].self, forKey: .startup) ?? []
        removal = try container.decodeIfPresent([RemovalFigures].self, forKey: .removal) ?? []
        removalFanout = try container.decodeIfPresent([FanoutFigures].self, forKey: .removalFanout) ?? []
        pipelineFanout = try container.decodeIfPresent([FanoutFigures].self, forKey: .pipelineFanout) ?? []
        scaling = try container.decodeIfPresent([FanoutFigures].self, forKey: .scaling) ?? []
        readsUnderChanges = try container.decodeIfPresent([ReadsUnderChangesFigures].self, forKey: .readsUnderChanges) ?? []
        writeFanout = try container.decodeIfPresent([FanoutFigures].self, forKey: .writeFanout) ?? []
        layouts = try container.decodeIfPresent([LayoutFigures].self, forKey: .layouts) ?? []
        batch = try container.decodeIfPresent([BatchFigures].self, forKey: .batch) ?? []
        stalledLarge = try container.decodeIfPresent([StalledLargeFigures].self, forKey: .stalledLarge) ?? []
        resume = try container.decodeIfPresent([ResumeFigures].self, forKey: .resume) ?? []
        notes = try container.decodeIfPresent([String].self, forKey: .notes) ?? []
    }

    public init(machine: MachineDescription, quick: Bool) {
        self.machine = machine
        self.quick = quick
    }
}

/// One system's fan-out of one state of `items` items to `subscribers` subscribers, over `rounds` rounds.
public struct FanoutFigures: Codable, Sendable {
    public var system: String
    public var items: Int
    public var subscribers: Int
    public var rounds: Int
    /// Per subscriber: from the trigger to the whole message received.
    public var latency: LatencySummary
    /// All deliveries divided by the summed time from each trigger to its last delivery.
    public var deliveriesPerSecond: Double
    public var bytesPerSecond: Double
    /// The mean size of one delivered message.
    public var messageBytes: Int
    /// The system's CPU time (user and system, from /proc) over its counted rounds, per round; nil where not taken.
    public var cpuMillisecondsPerRound: Double?
}

/// One system answering `method` to `clients` clients in a closed loop.
public struct RPCFigures: Codable, Sendable {
    public var system: String
    public var method: RPCMethodUnderTest
    public var items: Int
    public var clients: Int
    public var seconds: Double
    public var requestsPerSecond: Double
    public var latency: LatencySummary
    public var answerBytes: Int
}

/// A server's resident memory with no subscriber and with `subscribers` idle subscribers.
public struct IdleMemoryFigures: Codable, Sendable {
    public var system: String
    public var subscribers: Int
    public var idleKiB: Int
    public var withSubscribersKiB: Int
    public var kibPerSubscriber: Double
}

/// depotd's memory while `readers` subscribers receive `states` states and one subscriber (if `stalled`)
/// never reads.
public struct StalledSubscriberFigures: Codable, Sendable {
    public var stalled: Bool
    public var readers: Int
    public var states: Int
    public var items: Int
    public var queueLimit: Int
    public var beforeKiB: Int
    public var afterKiB: Int
    public var growthKiB: Int
    /// The bytes of the newest `queueLimit` states, the most a stalled subscriber's queue can hold, plus those
    /// of the notification its connection is writing.
    public var queueBoundKiB: Int
    /// What the stalled subscriber read once it started reading: messages, and the skipped count it was told.
    public var stalledMessagesRead: Int?
    public var stalledSawNewest: Bool?
    /// How much smaller depotd's resident memory was once the stalled subscriber had read everything.
    public var releasedKiB: Int?
}

/// One optimistic removal on a file source of `items` items with the on-disk cache, over `removals` removals:
/// the time to the confirmed state, and the median bytes depotd read and wrote on disk for one.
/// `get` from `clients` closed-loop readers over `items` items for `seconds`, idle and while the collection changed
/// `changesPerSecond` times a second (`changesMade` removals were answered in `changeSeconds`).
public struct ReadsUnderChangesFigures: Codable, Sendable {
    public var items: Int
    public var clients: Int
    public var seconds: Double
    public var changesPerSecond: Double
    /// What the changes were: removals when absent (results from before issue 39).
    public var change: ReadsUnderChangesScenario.Change?
    public var changesMade: Int
    public var changeSeconds: Double
    public var idle: LatencySummary
    public var changing: LatencySummary
}

public struct RemovalFigures: Codable, Sendable {
    public var items: Int
    public var removals: Int
    public var toConfirmedState: LatencySummary
    /// Bytes read by read calls, less the request (the socket's share).
    public var fileBytesRead: Int
    /// Bytes written by write calls, less the answer (the socket's share).
    public var fileBytesWritten: Int
    /// Bytes handed to the storage layer (0 where the kernel does not account them).
    public var storageBytesWritten: Int
    public var answerBytes: Int
}

/// From launching a server to its socket accepting, and to a subscriber holding the first loaded state.
public struct StartupFigures: Codable, Sendable {
    public var system: String
    public var items: Int
    public var runs: Int
    public var acceptingMilliseconds: Double
    public var firstStateMilliseconds: Double?
    /// depotd started on its on-disk cache of `items` (its source gone), rather than loading them from a file.
    public var fromCache: Bool? = nil
    /// From the file only: a `load` of the same items on the running daemon, request to answer.
    public var loadMilliseconds: Double? = nil
    /// The same bytes (the file, or the cache's files) read into memory by the benchmark, for scale.
    public var rawReadMilliseconds: Double? = nil
    /// depotd: the bytes of each item (results before this field: 1 KiB).
    public var itemBytes: Int? = nil
}

/// Issue 13: a delta-mode reader's latency for optimistic removals of a large collection, alone and with
/// `stalled` subscribers that never read, and depotd's memory growth meanwhile.
public struct StalledLargeFigures: Codable, Sendable {
    public var items: Int
    public var itemBytes: Int
    /// The bytes of the `state` answer: about one encoded collection.
    public var encodedStateBytes: Int
    public var stalled: Int
    public var removals: Int
    /// The reader's mode; the stalled subscribers are in snapshot mode.
    public var readerMode: String
    public var readerAlone: LatencySummary
    public var readerWithStalled: LatencySummary
    /// Resident memory once the stalled subscribers were connected, before their removals.
    public var beforeKiB: Int
    /// The highest resident memory sampled after each removal without the stalled subscribers.
    public var peakAloneKiB: Int
    /// The highest resident memory sampled after each removal with the stalled subscribers connected.
    public var peakKiB: Int
    /// What the stalled subscribers cost: `peakKiB` less the larger of `peakAloneKiB` and the resident memory before
    /// they connected; 0 when the highest with them is below the highest without them (nothing measurable).
    public var growthKiB: Int
}

/// Issue 13: a delta-mode client that missed `removals` removals, resuming against starting again.
public struct ResumeFigures: Codable, Sendable {
    public var items: Int
    public var itemBytes: Int
    public var removals: Int
    public var missedStates: Int
    public var resumed: Bool
    public var resumeBytes: Int
    public var resumeMilliseconds: Double
    public var resumeMessages: Int
    public var resyncBytes: Int
    public var resyncMilliseconds: Double
}
