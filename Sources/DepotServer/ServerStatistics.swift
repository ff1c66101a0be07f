import DepotCore
import DepotPlatform
import DepotWire

/// What `stats` reports, gathered from where it lives: the connections counted in, the memory their users hold,
/// how often each limit was reached, the repository (its state, queued mutations, source calls) and the
/// subscriptions on every loop. Shared by the server's connections, which count into its parts.
final class ServerStatistics: Sendable {
    let connections: ConnectionCounter
    let memory: ClientMemory
    let limits: LimitCounters
    private let started = ContinuousClock.now
    /// The on-disk cache's size; nil when there is none.
    private let cacheBytes: @Sendable () -> Int?
    /// What keeps the items fresh (the refresh schedule, the file watch); nil when nothing does.
    private let freshness: @Sendable () -> FreshnessStatus?

    /// - Parameter books: where the connections, the memory and the limits reached are counted.
    init(
        books: ServerBooks = ServerBooks(), cacheBytes: @escaping @Sendable () -> Int? = { nil },
        freshness: @escaping @Sendable () -> FreshnessStatus? = { nil }
    ) {
        self.connections = ConnectionCounter(books: books)
        self.memory = ClientMemory(books: books)
        self.limits = LimitCounters(books: books)
        self.cacheBytes = cacheBytes
        self.freshness = freshness
    }

    /// Gathers everything and calls `done` once, on whichever thread the last subscription loop answers on.
    func gather(repository: Repository, fanout: StateFanout, _ done: @escaping @Sendable (DepotStatistics) -> Void) {
        fanout.gatherSubscriptions { subscriptions, parked in
            var statistics = self.assemble(repository: repository, subscriptions: subscriptions)
            statistics.pipelines = fanout.pipelineCount
            statistics.parkedConnections = parked
            done(statistics)
        }
    }

    private func assemble(repository: Repository, subscriptions: [DepotStatistics.Subscription]) -> DepotStatistics {
        let current = repository.current
        let connectionsByUser = connections.byUser
        let memoryByUser = memory.byUser
        let queuedByUser = repository.queuedMutations
        var subscriptionsByUser: [UInt32?: Int] = [:]
        for subscription in subscriptions {
            subscriptionsByUser[subscription.uid, default: 0] += 1
        }
        var uids = Set<UInt32?>(connectionsByUser.keys.map { Optional($0) })
        uids.formUnion(memoryByUser.keys)
        uids.formUnion(subscriptionsByUser.keys)
        uids.formUnion(queuedByUser.keys.filter { $0 != nil })
        let users = uids.sorted { ($0 ?? .max) < ($1 ?? .max) }.map { uid in
            DepotStatistics.User(
                uid: uid, connections: uid.flatMap { connectionsByUser[$0] } ?? 0, subscriptions: subscriptionsByUser[uid] ?? 0,
                memoryBytes: memoryByUser[uid] ?? 0, queuedMutations: uid == nil ? 0 : queuedByUser[uid] ?? 0)
        }
        let calls = repository.sourceCallStatistics
        let uptime = started.duration(to: .now)
        var stale: Bool?
        if case .success(_, let provenance) = current.state { stale = provenance.stale }
        var statistics = DepotStatistics(
            epoch: repository.epoch, seq: current.seq, status: current.state.status.rawValue, items: current.state.items?.count,
            stale: stale,
            uptimeSeconds: Int(uptime.components.seconds), connections: connections.total, users: users, subscriptions: subscriptions,
            source: repository.source.description, fetches: Self.calls(calls.fetches), deletes: Self.calls(calls.deletes),
            cacheBytes: cacheBytes(), residentBytes: ProcessResources.residentBytes, openFiles: ProcessResources.openFiles,
            unfinishedLineBytes: memory.unfinished,
            limitsHit: limits.all.map { DepotStatistics.LimitHit(limit: $0.0.rawValue, count: $0.1) })
        statistics.staleReason = current.state.provenance?.staleReason
        statistics.readsFrom = repository.source.readsFrom
        statistics.readLagSeconds = repository.source.readLag?.secondsValue
        statistics.writes = Self.calls(calls.writes)
        statistics.pendingWrites = repository.pendingWrites
        statistics.refresh = Self.refresh(freshness(), repository.sourceHealth)
        return statistics
    }

    /// The refresh's figures as the wire gives them; nil when nothing keeps the items fresh.
    private static func refresh(_ freshness: FreshnessStatus?, _ health: SourceHealth) -> DepotStatistics.Refresh? {
        guard let freshness else { return nil }
        return DepotStatistics.Refresh(
            intervalSeconds: freshness.interval.map { Double($0.wholeMilliseconds) / 1000 }, intervalFrom: freshness.intervalFrom,
            nextRefreshAt: freshness.nextRefreshAt.map(RFC3339.string), retrying: freshness.retrying, paused: freshness.paused,
            lastAttemptAt: health.lastAttemptAt.map(RFC3339.string), lastSuccessAt: health.lastSuccessAt.map(RFC3339.string),
            consecutiveFailures: health.consecutiveFailures, failingSince: health.failingSince.map(RFC3339.string), lastError: health.lastError,
            watchedFile: freshness.watchedFile, watchProblem: freshness.watchProblem)
    }

    private static func calls(_ calls: SourceCallStatistics.Calls) -> DepotStatistics.SourceCalls {
        func microseconds(_ seconds: Double?) -> Int? { seconds.map { Int(($0 * 1_000_000).rounded()) } }
        return DepotStatistics.SourceCalls(
            calls: calls.count, failures: calls.failures, lastMicroseconds: microseconds(calls.lastSeconds),
            p50Microseconds: microseconds(calls.quantileSeconds(0.5)), p99Microseconds: microseconds(calls.quantileSeconds(0.99)),
            maxMicroseconds: microseconds(calls.maxSeconds))
    }
}
