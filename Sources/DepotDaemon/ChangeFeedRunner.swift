import DepotCore
import Logging
import ServiceLifecycle

/// Runs the change feed of a source that has one (`ChangeFeedSource`: a PostgreSQL table's, a script's steps). Idle
/// for other sources; a reload that changes the source stops the old feed (awaited: its connection closed) before the
/// new one's starts.
final class ChangeFeedRunner: Service {
    private let repository: Repository
    private let clock: any Clock<Duration>
    private let logger: Logger
    /// The sources to follow: the one given at start, then each a reload puts in force (only the newest is kept).
    private let sources: AsyncStream<any Source>
    private let sourcesContinuation: AsyncStream<any Source>.Continuation

    /// - Parameter clock: what the feeds wait on (polls, a script's steps); tests give one of their own.
    init(following source: any Source, repository: Repository, clock: any Clock<Duration> = ContinuousClock(), logger: Logger) {
        self.repository = repository
        self.clock = clock
        self.logger = logger
        (sources, sourcesContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        sourcesContinuation.yield(source)
    }

    /// Follows `source` from now on, instead of the source followed now.
    func follow(_ source: any Source) {
        sourcesContinuation.yield(source)
    }

    /// One feed at a time, a child task of this service's: stopped (and awaited) before the next starts, and before
    /// run returns at a graceful shutdown, which ends the stream of sources.
    func run() async throws {
        let (repository, clock, logger) = (repository, clock, logger)
        await withGracefulShutdownHandler {
            var sources = self.sources.makeAsyncIterator()
            var next = await sources.next()
            while let source = next {
                next = await withTaskGroup(of: Void.self) { group in
                    if let feed = source as? any ChangeFeedSource {
                        group.addTask { await feed.followChanges(into: repository, clock: clock, logger: logger) }
                    }
                    // Until another source comes, or shutdown: then the feed is cancelled, and awaited as the group ends.
                    let following = await sources.next()
                    group.cancelAll()
                    return following
                }
            }
        } onGracefulShutdown: { [sourcesContinuation] in
            sourcesContinuation.finish()
        }
    }
}
