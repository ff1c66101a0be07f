public import NIOCore
import NIOPosix

/// The thread a source's connection lives on (PostgreSQL's), and the repository's mutations with it: an event loop of
/// its own, which serves no client, and a task executor for it. A change read from the connection is decoded,
/// applied and published on this one thread; each thread it crossed before cost a switch and a wake-up, about a third
/// of a change's CPU (BENCHMARKS.md, issue 40). Its owner makes it before the source and the repository and shuts it
/// down after every task that prefers it has ended (depotd: after its service group).
///
/// Work proportional to the collection (a full load applied) may run here: no client waits behind this loop, only the
/// source's next answer, which the repository's one-at-a-time mutations would make wait anyway.
public final class SourceLoop: TaskExecutor {
    /// The loop: a source opens its connections on it.
    public let eventLoop: any EventLoop
    private let group: MultiThreadedEventLoopGroup

    public init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        eventLoop = group.next()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The clock whose sleeps are this loop's timers.
    public var clock: LoopClock { LoopClock(eventLoop) }

    /// Stops the thread once what was handed to it has run; nothing may prefer this executor afterwards.
    public func shutDown() async {
        try? await group.shutdownGracefully()
    }
}

/// Runs `body` with a `SourceLoop` of its own, shut down once `body` has returned or thrown: the loop's whole life in
/// its owner's scope (depotd's `run`, around its service group; a test).
public func withSourceLoop<Value>(_ body: (SourceLoop) async throws -> Value) async throws -> Value {
    let sourceLoop = SourceLoop()
    do {
        let value = try await body(sourceLoop)
        await sourceLoop.shutDown()
        return value
    } catch {
        await sourceLoop.shutDown()
        throw error
    }
}
