public import DepotRPC

/// The limits every connection is held to, so no client can grow the daemon's memory without bound.
public struct ConnectionLimits: Sendable, Equatable {
    /// The longest line accepted; a longer one is answered with an error and the connection is closed.
    public var maxMessageBytes: Int
    /// States a subscription may have waiting; beyond it the oldest are dropped and `skipped` says how many.
    public var subscriberQueueLimit: Int
    /// Bytes of states a subscription may have waiting, counted as each state's encoded size; beyond it the
    /// oldest are dropped as for the count. The newest state is always kept, so one state larger than this is
    /// still sent, alone.
    public var subscriberQueueBytes: Int
    /// States the replay ring keeps for subscriptions that resume (`subscribe` with `since`).
    public var replayStates: Int
    /// Bytes of encodings the replay ring keeps; past either bound its oldest states go, and a resume from
    /// before them starts again from the current state.
    public var replayBytes: Int
    /// Requests of one connection waiting for a mutation; beyond it the connection is not read until one finishes.
    public var maxPendingRequests: Int
    /// Subscriptions one connection may hold at once.
    public var maxSubscriptions: Int
    /// Requests one batch may hold; a larger batch is refused whole.
    public var maxBatchRequests: Int
    /// Bytes of answers one batch's line may carry; past it, the remaining answers are replaced by an error.
    public var maxBatchAnswerBytes: Int
    /// Connections open at once, in all; past it a new one is told so and closed.
    public var maxConnections: Int
    /// Connections open at once from one uid (root is exempt); past it a new one is told so and closed.
    public var maxConnectionsPerUser: Int
    /// How long a line may sit unfinished; past it the connection is closed (a slow or stalled sender).
    public var partialLineTimeout: Duration
    /// Bytes of answers one connection may leave unread (written, not yet taken by its socket); past it, with more
    /// than one answer waiting, the connection is closed: answers cannot be dropped or merged, as states can.
    public var maxUnreadAnswerBytes: Int
    /// Bytes the connections of one user (root aside) may hold in depotd's memory (`ClientMemory`): past it, the
    /// connection that takes more is closed.
    public var maxMemoryPerUser: Int
    /// Bytes of unfinished lines from all connections together; past it, the connection whose line grows is told
    /// so and closed.
    public var maxUnfinishedLineBytes: Int

    /// 64 MiB: several answers of a large collection, yet a client that never reads cannot pile up hundreds.
    public static let defaultMaxUnreadAnswerBytes = 64 << 20
    /// 192 MiB: what a user's connections may keep alive in depotd by the books. What the books cannot see —
    /// transient copies, the allocator's slack — was measured at up to 35 MiB more (scripts/measure-bounds), so one
    /// uid grows depotd's RSS by at most 256 MiB, whatever it sends.
    public static let defaultMaxMemoryPerUser = 192 << 20
    /// 512 MiB: twice one user's bound, so one user cannot take all of it.
    public static let defaultMaxUnfinishedLineBytes = 512 << 20
    /// 64 requests waiting for a mutation, and 64 subscriptions, per connection.
    public static let defaultMaxPendingRequests = 64
    public static let defaultMaxSubscriptions = 64

    /// 30 seconds: far longer than any client needs to send one line.
    public static let defaultPartialLineTimeout = Duration.seconds(30)

    /// 4096 in all and 1024 per user, varlink's bounds.
    public static let defaultMaxConnections = 4096
    public static let defaultMaxConnectionsPerUser = 1024

    /// 1 MiB, the size of the longest request line by default: a batch cannot amplify its request by more.
    public static let defaultMaxBatchAnswerBytes = 1 << 20
    public static let defaultMaxMessageBytes = 1 << 20
    public static let defaultSubscriberQueueLimit = 256
    /// 8 MiB: 32 states of 256 KiB, or one of a 100,000-item collection.
    public static let defaultSubscriberQueueBytes = 8 << 20
    /// 1024 states: a client away for a few minutes of frequent changes still resumes.
    public static let defaultReplayStates = 1024
    /// 64 MiB: thousands of small states or deltas, or a few snapshots of a large collection.
    public static let defaultReplayBytes = 64 << 20

    public init(
        maxMessageBytes: Int = defaultMaxMessageBytes,
        subscriberQueueLimit: Int = defaultSubscriberQueueLimit,
        subscriberQueueBytes: Int = defaultSubscriberQueueBytes,
        replayStates: Int = defaultReplayStates,
        replayBytes: Int = defaultReplayBytes,
        maxPendingRequests: Int = defaultMaxPendingRequests,
        maxSubscriptions: Int = defaultMaxSubscriptions,
        maxBatchRequests: Int = IncomingMessage.defaultMaxBatchRequests,
        maxBatchAnswerBytes: Int = defaultMaxBatchAnswerBytes,
        maxConnections: Int = defaultMaxConnections,
        maxConnectionsPerUser: Int = defaultMaxConnectionsPerUser,
        partialLineTimeout: Duration = defaultPartialLineTimeout,
        maxUnreadAnswerBytes: Int = defaultMaxUnreadAnswerBytes,
        maxMemoryPerUser: Int = defaultMaxMemoryPerUser,
        maxUnfinishedLineBytes: Int = defaultMaxUnfinishedLineBytes
    ) {
        self.maxUnreadAnswerBytes = maxUnreadAnswerBytes
        self.maxMemoryPerUser = maxMemoryPerUser
        self.maxUnfinishedLineBytes = maxUnfinishedLineBytes
        self.partialLineTimeout = partialLineTimeout
        self.maxBatchAnswerBytes = maxBatchAnswerBytes
        self.maxConnections = maxConnections
        self.maxConnectionsPerUser = maxConnectionsPerUser
        self.maxMessageBytes = maxMessageBytes
        self.subscriberQueueLimit = subscriberQueueLimit
        self.subscriberQueueBytes = subscriberQueueBytes
        self.replayStates = replayStates
        self.replayBytes = replayBytes
        self.maxPendingRequests = maxPendingRequests
        self.maxSubscriptions = maxSubscriptions
        self.maxBatchRequests = maxBatchRequests
    }
}
