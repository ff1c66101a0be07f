package import DepotCore
import DepotSources
package import Logging

/// Keeps the repository in step with a PostgreSQL table: runs the `PostgresLink`, and on every wake-up, on every
/// (re)connection and every poll interval asks the repository to `follow` (read only what changed since the
/// revision it holds). A wake-up for a revision already held costs nothing; a lost connection marks the items
/// stale until the link is back and caught up. Now and then (about hourly, jittered) it prunes the log.
///
/// Runs until its task is cancelled (the daemon's service group on shutdown).
package struct ChangeFeed: Sendable {
    package let repository: Repository
    package let source: PostgresSource
    /// What the polls wait on.
    private let clock: any Clock<Duration>
    private let logger: Logger

    package init(repository: Repository, source: PostgresSource, clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.repository = repository
        self.source = source
        self.clock = clock
        self.logger = logger
    }

    /// What wakes the feed.
    private enum Wake: Sendable {
        case link(PostgresLink.Event)
        case poll
    }

    package func run() async {
        let (wakes, continuation) = AsyncStream.makeStream(of: Wake.self)
        let link = source.link
        let pollInterval = link.address.pollInterval
        await withDiscardingTaskGroup { group in
            group.addTask {
                await link.run { continuation.yield(.link($0)) }
                continuation.finish()
            }
            // Replicas wake nobody: their links only keep a connection to read from.
            for replica in source.replicas {
                group.addTask { await replica.run { _ in } }
            }
            group.addTask { [clock] in
                // Each wait drawn from 75–100 % of the interval: daemons started together (a fleet after the
                // database or its pooler came back) drift apart rather than poll in lockstep, and no change waits
                // longer than the interval for the next poll.
                var generator = SystemRandomNumberGenerator()
                while (try? await clock.sleep(for: pollInterval * Double.random(in: 0.75...1.0, using: &generator))) != nil {
                    continuation.yield(.poll)
                }
            }
            var generator = SystemRandomNumberGenerator()
            let pollsPerPrune = max(1, Int(Duration.seconds(3600) / pollInterval))
            var pollsUntilPrune = Int.random(in: 1...pollsPerPrune, using: &generator)
            for await wake in wakes {
                switch wake {
                case .link(.connected):
                    _ = await repository.follow().result
                case .link(.changed(let position)):
                    if let position, let held = repository.sourceVersion?.revision, held >= position { continue }
                    if let position { source.require(position) }
                    _ = await repository.follow(through: position).result
                case .link(.lost(let reason)):
                    _ = await repository.markStale(because: "the connection to \(link.address) was lost (\(reason))").result
                case .poll:
                    guard link.isConnected else { continue }
                    _ = await repository.follow().result
                    pollsUntilPrune -= 1
                    if pollsUntilPrune <= 0 {
                        pollsUntilPrune = pollsPerPrune
                        await prune()
                    }
                }
            }
            group.cancelAll()
        }
    }

    private func prune() async {
        do {
            try await source.pruneLog()
        } catch {
            logger.warning("cannot prune the change log: \(error)")
        }
    }
}
