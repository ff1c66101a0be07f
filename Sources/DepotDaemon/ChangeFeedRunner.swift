import DepotCore
import DepotPlatform
import DepotPostgresSource
import Logging
import ServiceLifecycle

/// Runs the change feed of a `postgres://` source (see `ChangeFeed`): its connection, its wake-ups and polls. Idle
/// for other sources; a reload that changes the source stops the old feed (closing its connection) and starts the
/// new one's.
final class ChangeFeedRunner: Service {
    private let repository: Repository
    private let logger: Logger
    /// The sources to follow, newest last; the first is the one given at start.
    private let sources = Inbox<any Source>()

    init(following source: any Source, repository: Repository, logger: Logger) {
        self.repository = repository
        self.logger = logger
        sources.post(source)
    }

    /// Follows `source` from now on, instead of the source followed now.
    func follow(_ source: any Source) {
        sources.post(source)
    }

    /// One feed at a time, a child task of this service's: stopped (and awaited) before the next starts, and before
    /// run returns at a graceful shutdown.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            var source: (any Source)?
            while !Task.isCancelled {
                source = self.sources.take().last ?? source
                await withTaskGroup(of: Void.self) { group in
                    if let postgres = source as? PostgresSource {
                        let feed = ChangeFeed(repository: self.repository, source: postgres, logger: self.logger)
                        group.addTask { await feed.run() }
                    }
                    // Until another source comes, or shutdown: then the feed is cancelled, and awaited as the group ends.
                    await self.sources.wait(until: nil, on: ContinuousClock())
                    group.cancelAll()
                }
            }
        }
    }
}
