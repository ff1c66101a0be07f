import DepotCore
import DepotPostgresSource
import Logging
import ServiceLifecycle

/// Runs the change feed of a `postgres://` source (see `ChangeFeed`): its connection, its wake-ups and polls. Idle
/// for other sources; a reload that changes the source stops the old feed (closing its connection) and starts the
/// new one's.
final class ChangeFeedRunner: Service {
    private let repository: Repository
    private let logger: Logger
    private let sources: AsyncStream<(any Source)?>
    private let sourcesContinuation: AsyncStream<(any Source)?>.Continuation

    init(following source: any Source, repository: Repository, logger: Logger) {
        self.repository = repository
        self.logger = logger
        (sources, sourcesContinuation) = AsyncStream.makeStream()
        sourcesContinuation.yield(source)
    }

    /// Follows `source` from now on, instead of the source followed now.
    func follow(_ source: any Source) {
        sourcesContinuation.yield(source)
    }

    func run() async throws {
        let sources = sources
        await withGracefulShutdownHandler {
            // One feed at a time, stopped (and awaited) before the next starts and before run returns.
            var running: Task<Void, Never>?
            for await source in sources {
                running?.cancel()
                await running?.value
                running = nil
                if let source = source as? PostgresSource {
                    let feed = ChangeFeed(repository: repository, source: source, logger: logger)
                    running = Task { await feed.run() }
                }
            }
            running?.cancel()
            await running?.value
        } onGracefulShutdown: { [sourcesContinuation] in
            sourcesContinuation.finish()
        }
    }
}
