public import DepotJSON
import DepotPlatform

/// What `stats` answers: the repository's state, who is connected and what they hold, every subscription's queue,
/// how the source's calls went, the process's memory and descriptors, and how often each limit was reached.
public struct DepotStatistics: Sendable, Equatable {
    /// The connections of one uid.
    public struct User: Sendable, Equatable {
        /// nil for connections without credentials (not a Unix socket).
        public var uid: UInt32?
        public var connections: Int
        public var subscriptions: Int
        /// Bytes its connections hold in depotd (counted against --max-memory-per-user).
        public var memoryBytes: Int
        /// Mutations it asked for that wait their turn.
        public var queuedMutations: Int

        public init(uid: UInt32?, connections: Int, subscriptions: Int, memoryBytes: Int, queuedMutations: Int) {
            self.uid = uid
            self.connections = connections
            self.subscriptions = subscriptions
            self.memoryBytes = memoryBytes
            self.queuedMutations = queuedMutations
        }
    }

    /// One subscription and its queue.
    public struct Subscription: Sendable, Equatable {
        public var subscription: String
        public var uid: UInt32?
        public var mode: SubscriptionMode
        /// The pipeline's name, or its operators as JSON text; nil for none.
        public var pipeline: String?
        public var queuedStates: Int
        public var queuedBytes: Int
        /// States it was told it skipped, in all.
        public var skipped: Int
        /// Notifications written to it, in all.
        public var sent: Int

        public init(
            subscription: String, uid: UInt32?, mode: SubscriptionMode, pipeline: String?, queuedStates: Int, queuedBytes: Int, skipped: Int,
            sent: Int
        ) {
            self.subscription = subscription
            self.uid = uid
            self.mode = mode
            self.pipeline = pipeline
            self.queuedStates = queuedStates
            self.queuedBytes = queuedBytes
            self.skipped = skipped
            self.sent = sent
        }
    }

    /// One kind of source call: how many, how many failed, and how long they took, in microseconds (the median
    /// and 99th percentile of the latest 1024).
    public struct SourceCalls: Sendable, Equatable {
        public var calls: Int
        public var failures: Int
        public var lastMicroseconds: Int?
        public var p50Microseconds: Int?
        public var p99Microseconds: Int?
        public var maxMicroseconds: Int?

        public init(
            calls: Int, failures: Int, lastMicroseconds: Int? = nil, p50Microseconds: Int? = nil, p99Microseconds: Int? = nil,
            maxMicroseconds: Int? = nil
        ) {
            self.calls = calls
            self.failures = failures
            self.lastMicroseconds = lastMicroseconds
            self.p50Microseconds = p50Microseconds
            self.p99Microseconds = p99Microseconds
            self.maxMicroseconds = maxMicroseconds
        }
    }

    /// How the source is kept fresh, and how it has answered lately: the refresh interval in force and what set it,
    /// the next refresh, the last attempt and answer, the failures in a row, and the file watched. Times are RFC 3339
    /// (`RFC3339`).
    public struct Refresh: Sendable, Equatable {
        /// Seconds between the last answer and the next refresh; nil when nothing refreshes on a timer.
        public var intervalSeconds: Double?
        /// `setting`, `max-age`, `s-maxage`, `Expires`; or why there is no interval: `off`, `no-cache`, `no-store`,
        /// `no lifetime`, `not yet known`, `source` (a file, table or script is not refreshed on a timer).
        public var intervalFrom: String
        public var nextRefreshAt: String?
        /// The next refresh is a retry after failures.
        public var retrying: Bool
        /// Refreshes wait for a subscriber (`--refresh-when subscribed`).
        public var paused: Bool
        public var lastAttemptAt: String?
        /// The last time the source gave the items or confirmed them unchanged.
        public var lastSuccessAt: String?
        public var consecutiveFailures: Int
        /// When the current run of failures began.
        public var failingSince: String?
        public var lastError: String?
        /// The file watched for changes; nil when none is.
        public var watchedFile: String?
        /// Why the file is not watched; nil when it is, or none should be.
        public var watchProblem: String?

        public init(
            intervalSeconds: Double?, intervalFrom: String, nextRefreshAt: String? = nil, retrying: Bool = false, paused: Bool = false,
            lastAttemptAt: String? = nil, lastSuccessAt: String? = nil, consecutiveFailures: Int = 0, failingSince: String? = nil,
            lastError: String? = nil, watchedFile: String? = nil, watchProblem: String? = nil
        ) {
            self.intervalSeconds = intervalSeconds
            self.intervalFrom = intervalFrom
            self.nextRefreshAt = nextRefreshAt
            self.retrying = retrying
            self.paused = paused
            self.lastAttemptAt = lastAttemptAt
            self.lastSuccessAt = lastSuccessAt
            self.consecutiveFailures = consecutiveFailures
            self.failingSince = failingSince
            self.lastError = lastError
            self.watchedFile = watchedFile
            self.watchProblem = watchProblem
        }
    }

    /// One limit: its setting's name and how often it was reached.
    public struct LimitHit: Sendable, Equatable {
        public var limit: String
        public var count: Int

        public init(limit: String, count: Int) {
            self.limit = limit
            self.count = count
        }
    }

    public var epoch: String
    /// The current state's seq: states published since depotd started.
    public var seq: Int
    public var status: String
    /// Items held, when the state is a success.
    public var items: Int?
    /// Whether those items are the last good ones, the source unreachable; nil unless the state is a success.
    public var stale: Bool?
    /// Why they are stale, as the state says; nil unless they are.
    public var staleReason: String?
    public var uptimeSeconds: Int
    public var connections: Int
    public var users: [User]
    public var subscriptions: [Subscription]
    public var source: String
    /// Where the source's loads and catch-ups go when it has replicas (a PostgreSQL hot standby, or the primary when
    /// none is up to date); nil when it has none.
    public var readsFrom: String?
    /// How far behind its primary the replica read last was, in seconds, as it told; nil when reads go to the source
    /// itself, or it has no replicas.
    public var readLagSeconds: Double?
    public var fetches: SourceCalls
    /// Writes that only removed items.
    public var deletes: SourceCalls
    /// Writes that put items: puts, patches, batches; empty from a depotd before 0.3.0.
    public var writes = SourceCalls(calls: 0, failures: 0)
    /// Optimistic writes shown that the source has not confirmed yet.
    public var pendingWrites = 0
    /// Distinct pipelines running, each shared by the subscriptions that use it (against maxPipelines); 0 from a depotd
    /// that does not say.
    public var pipelines = 0
    /// Connections parked: subscribers whose sockets are full, set aside until they read (`skipped` tells them what
    /// they missed); 0 from a depotd that does not say.
    public var parkedConnections = 0
    /// How the source is kept fresh; nil from a depotd that does not say.
    public var refresh: Refresh?
    /// The on-disk cache's size (its files); nil without a cache.
    public var cacheBytes: Int?
    public var residentBytes: Int?
    public var openFiles: Int?
    /// Bytes of unfinished lines from all connections (against --max-unfinished-line-bytes).
    public var unfinishedLineBytes: Int
    public var limitsHit: [LimitHit]

    public init(
        epoch: String, seq: Int, status: String, items: Int?, stale: Bool? = nil, uptimeSeconds: Int, connections: Int, users: [User],
        subscriptions: [Subscription],
        source: String, fetches: SourceCalls, deletes: SourceCalls, cacheBytes: Int?, residentBytes: Int?, openFiles: Int?,
        unfinishedLineBytes: Int, limitsHit: [LimitHit]
    ) {
        self.epoch = epoch
        self.seq = seq
        self.status = status
        self.items = items
        self.stale = stale
        self.uptimeSeconds = uptimeSeconds
        self.connections = connections
        self.users = users
        self.subscriptions = subscriptions
        self.source = source
        self.fetches = fetches
        self.deletes = deletes
        self.cacheBytes = cacheBytes
        self.residentBytes = residentBytes
        self.openFiles = openFiles
        self.unfinishedLineBytes = unfinishedLineBytes
        self.limitsHit = limitsHit
    }

    // MARK: JSON

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    private static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(members.compactMap { name, value in value.map { (name, $0) } }))
    }

    /// The result as depotd sends it; absent values are left out.
    public var json: JSONValue {
        Self.object([
            ("epoch", .string(epoch)), ("seq", Self.number(seq)), ("status", .string(status)), ("items", items.map(Self.number)),
            ("stale", stale.map(JSONValue.bool)), ("staleReason", staleReason.map(JSONValue.string)),
            ("uptimeSeconds", Self.number(uptimeSeconds)), ("connections", Self.number(connections)),
            (
                "users",
                .array(
                    users.map { user in
                        Self.object([
                            ("uid", user.uid.map { Self.number(Int($0)) }), ("connections", Self.number(user.connections)),
                            ("subscriptions", Self.number(user.subscriptions)), ("memoryBytes", Self.number(user.memoryBytes)),
                            ("queuedMutations", Self.number(user.queuedMutations)),
                        ])
                    })
            ),
            (
                "subscriptions",
                .array(
                    subscriptions.map { entry in
                        Self.object([
                            ("subscription", .string(entry.subscription)), ("uid", entry.uid.map { Self.number(Int($0)) }),
                            ("mode", .string(entry.mode.rawValue)), ("pipeline", entry.pipeline.map(JSONValue.string)),
                            ("queuedStates", Self.number(entry.queuedStates)), ("queuedBytes", Self.number(entry.queuedBytes)),
                            ("skipped", Self.number(entry.skipped)), ("sent", Self.number(entry.sent)),
                        ])
                    })
            ),
            (
                "source",
                Self.object(
                    [
                        ("name", .string(source)), ("readsFrom", readsFrom.map(JSONValue.string)), ("readLag", readLagSeconds.flatMap(Self.seconds)),
                        ("fetches", Self.json(fetches)),
                        ("deletes", Self.json(deletes)), ("writes", Self.json(writes)),
                    ] + Self.members(refresh))
            ),
            ("pendingWrites", Self.number(pendingWrites)),
            ("pipelines", Self.number(pipelines)),
            ("parkedConnections", Self.number(parkedConnections)),
            ("cacheBytes", cacheBytes.map(Self.number)),
            ("process", Self.object([("residentBytes", residentBytes.map(Self.number)), ("openFiles", openFiles.map(Self.number))])),
            ("unfinishedLineBytes", Self.number(unfinishedLineBytes)),
            ("limitsHit", .object(JSONObject(limitsHit.map { ($0.limit, Self.number($0.count)) }))),
        ])
    }

    /// Seconds to the millisecond, as few digits as they need.
    private static func seconds(_ seconds: Double) -> JSONValue? {
        let milliseconds = Int64((seconds * 1000).rounded())
        let literal = milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
        return JSONNumber(literal: literal).map(JSONValue.number)
    }

    /// The refresh's members of the `source` object; none when there is nothing to say.
    private static func members(_ refresh: Refresh?) -> [(String, JSONValue?)] {
        guard let refresh else { return [] }
        return [
            ("interval", refresh.intervalSeconds.flatMap(seconds)), ("intervalFrom", .string(refresh.intervalFrom)),
            ("nextRefreshAt", refresh.nextRefreshAt.map(JSONValue.string)),
            ("retrying", .bool(refresh.retrying)), ("paused", .bool(refresh.paused)),
            ("lastAttemptAt", refresh.lastAttemptAt.map(JSONValue.string)), ("lastSuccessAt", refresh.lastSuccessAt.map(JSONValue.string)),
            ("consecutiveFailures", number(refresh.consecutiveFailures)), ("failingSince", refresh.failingSince.map(JSONValue.string)),
            ("lastError", refresh.lastError.map(JSONValue.string)), ("watching", .bool(refresh.watchedFile != nil)),
            ("watchedFile", refresh.watchedFile.map(JSONValue.string)), ("watchProblem", refresh.watchProblem.map(JSONValue.string)),
        ]
    }

    private static func json(_ calls: SourceCalls) -> JSONValue {
        object([
            ("calls", number(calls.calls)), ("failures", number(calls.failures)), ("lastMicroseconds", calls.lastMicroseconds.map(number)),
            ("p50Microseconds", calls.p50Microseconds.map(number)), ("p99Microseconds", calls.p99Microseconds.map(number)),
            ("maxMicroseconds", calls.maxMicroseconds.map(number)),
        ])
    }

    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else { throw WireDecodingError("stats answers an object, not \(value.typeName)") }
        let members = Members(object: object, of: "stats' answer")
        func uid(_ members: Members) throws(WireDecodingError) -> UInt32? {
            guard let value = try members.optionalNonNegativeInteger("uid") else { return nil }
            guard let uid = UInt32(exactly: value) else { throw WireDecodingError("\(members.subject)'s \"uid\" is not a uid: \(value)") }
            return uid
        }
        func calls(_ members: Members) throws(WireDecodingError) -> SourceCalls {
            SourceCalls(
                calls: try members.nonNegativeInteger("calls"), failures: try members.nonNegativeInteger("failures"),
                lastMicroseconds: try members.optionalNonNegativeInteger("lastMicroseconds"),
                p50Microseconds: try members.optionalNonNegativeInteger("p50Microseconds"),
                p99Microseconds: try members.optionalNonNegativeInteger("p99Microseconds"),
                maxMicroseconds: try members.optionalNonNegativeInteger("maxMicroseconds"))
        }
        epoch = try members.string("epoch")
        seq = try members.nonNegativeInteger("seq")
        status = try members.string("status")
        items = try members.optionalNonNegativeInteger("items")
        stale = try members.optionalBool("stale")
        staleReason = try members.optionalString("staleReason")
        uptimeSeconds = try members.nonNegativeInteger("uptimeSeconds")
        connections = try members.nonNegativeInteger("connections")
        var users: [User] = []
        for element in try members.objects("users") {
            guard case .object(let user) = element else { continue }
            let entry = Members(object: user, of: "a user of stats' answer")
            users.append(
                User(
                    uid: try uid(entry), connections: try entry.nonNegativeInteger("connections"),
                    subscriptions: try entry.nonNegativeInteger("subscriptions"), memoryBytes: try entry.nonNegativeInteger("memoryBytes"),
                    queuedMutations: try entry.nonNegativeInteger("queuedMutations")))
        }
        self.users = users
        var subscriptions: [Subscription] = []
        for element in try members.objects("subscriptions") {
            guard case .object(let subscription) = element else { continue }
            let entry = Members(object: subscription, of: "a subscription of stats' answer")
            subscriptions.append(
                Subscription(
                    subscription: try entry.string("subscription"), uid: try uid(entry), mode: try entry.choice("mode", of: SubscriptionMode.self),
                    pipeline: try entry.optionalString("pipeline"), queuedStates: try entry.nonNegativeInteger("queuedStates"),
                    queuedBytes: try entry.nonNegativeInteger("queuedBytes"), skipped: try entry.nonNegativeInteger("skipped"),
                    sent: try entry.nonNegativeInteger("sent")))
        }
        self.subscriptions = subscriptions
        let source = try members.members("source")
        self.source = try source.string("name")
        readsFrom = try source.optionalString("readsFrom")
        readLagSeconds = source.object["readLag"]?.numberValue?.doubleValue
        fetches = try calls(try source.members("fetches"))
        deletes = try calls(try source.members("deletes"))
        if source.object["writes"] != nil { writes = try calls(try source.members("writes")) }
        pendingWrites = try members.optionalNonNegativeInteger("pendingWrites") ?? 0
        pipelines = try members.optionalNonNegativeInteger("pipelines") ?? 0
        parkedConnections = try members.optionalNonNegativeInteger("parkedConnections") ?? 0
        if let intervalFrom = try source.optionalString("intervalFrom") {
            refresh = Refresh(
                intervalSeconds: source.object["interval"]?.numberValue?.doubleValue, intervalFrom: intervalFrom,
                nextRefreshAt: try source.optionalString("nextRefreshAt"), retrying: try source.optionalBool("retrying") ?? false,
                paused: try source.optionalBool("paused") ?? false, lastAttemptAt: try source.optionalString("lastAttemptAt"),
                lastSuccessAt: try source.optionalString("lastSuccessAt"),
                consecutiveFailures: try source.optionalNonNegativeInteger("consecutiveFailures") ?? 0,
                failingSince: try source.optionalString("failingSince"), lastError: try source.optionalString("lastError"),
                watchedFile: try source.optionalString("watchedFile"), watchProblem: try source.optionalString("watchProblem"))
        }
        cacheBytes = try members.optionalNonNegativeInteger("cacheBytes")
        let process = try members.members("process")
        residentBytes = try process.optionalNonNegativeInteger("residentBytes")
        openFiles = try process.optionalNonNegativeInteger("openFiles")
        unfinishedLineBytes = try members.nonNegativeInteger("unfinishedLineBytes")
        let limits = try members.members("limitsHit")
        var limitsHit: [LimitHit] = []
        for name in limits.object.keys {
            limitsHit.append(LimitHit(limit: name, count: try limits.nonNegativeInteger(name)))
        }
        self.limitsHit = limitsHit
    }
}
