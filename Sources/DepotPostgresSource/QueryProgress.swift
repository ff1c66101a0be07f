import DepotPlatform

/// When an answer last made progress, for the link's time limit: a query fails when nothing arrives for the limit,
/// not when a large answer (a table of 100,000 rows, read while the database is busy) takes longer than it in all.
package final class QueryProgress: Sendable {
    private let last = Locked(ContinuousClock.now)

    init() {}

    /// Rows keep arriving: the connection is alive.
    package func advanced() {
        last.withLock { $0 = .now }
    }

    var lastAdvanced: ContinuousClock.Instant {
        last.withLock { $0 }
    }
}
