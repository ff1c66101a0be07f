import DepotPlatform

/// How the source's calls have gone since the repository started: for fetches and for deletes, how many, how many
/// failed, and how long they took (the last, the median and the 99th percentile of the recent ones, the longest).
public struct SourceCallStatistics: Sendable, Equatable {
    /// One kind of call.
    public struct Calls: Sendable, Equatable {
        public internal(set) var count = 0
        public internal(set) var failures = 0
        public internal(set) var lastSeconds: Double?
        public internal(set) var maxSeconds: Double?
        /// The durations of the latest calls, at most `recentLimit`, oldest first.
        var recent: [Double] = []
        var recentStart = 0

        static let recentLimit = 1024

        public init() {}

        /// The `fraction` quantile (0.5: the median) of the recent calls' durations; nil before the first call.
        public func quantileSeconds(_ fraction: Double) -> Double? {
            guard !recent.isEmpty else { return nil }
            let sorted = recent.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }

        /// One call; `seconds` nil for a failure found without a call (a watched file found deleted).
        mutating func record(seconds: Double?, failed: Bool) {
            count += 1
            if failed { failures += 1 }
            guard let seconds else { return }
            lastSeconds = seconds
            maxSeconds = max(maxSeconds ?? 0, seconds)
            if recent.count < Self.recentLimit {
                recent.append(seconds)
            } else {
                recent[recentStart] = seconds
                recentStart = (recentStart + 1) % Self.recentLimit
            }
        }
    }

    public internal(set) var fetches = Calls()
    /// Writes that only remove items.
    public internal(set) var deletes = Calls()
    /// Writes that put items (patches, batches).
    public internal(set) var writes = Calls()

    public init() {}
}

/// Times the source's calls into `SourceCallStatistics`.
final class SourceCallRecorder: Sendable {
    private let statistics = Locked(SourceCallStatistics())

    var current: SourceCallStatistics { statistics.withLock { $0 } }

    /// Runs `call`, recording how long it took and whether it threw, as a fetch or a delete.
    func time<Value>(
        _ kind: WritableKeyPath<SourceCallStatistics, SourceCallStatistics.Calls>, _ call: () async throws -> Value
    )
        async throws -> Value
    {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await call()
            record(kind, since: start, clock: clock, failed: false)
            return value
        } catch {
            record(kind, since: start, clock: clock, failed: true)
            throw error
        }
    }

    private func record(
        _ kind: WritableKeyPath<SourceCallStatistics, SourceCallStatistics.Calls>, since start: ContinuousClock.Instant, clock: ContinuousClock,
        failed: Bool
    ) {
        record(kind, took: start.duration(to: clock.now), failed: failed)
    }

    /// Records a call timed by its caller (nil: a failure found without a call).
    func record(_ kind: WritableKeyPath<SourceCallStatistics, SourceCallStatistics.Calls>, took elapsed: Duration?, failed: Bool) {
        let seconds = elapsed.map(\.secondsValue)
        statistics.withLock { $0[keyPath: kind].record(seconds: seconds, failed: failed) }
    }
}
