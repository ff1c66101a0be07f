import DepotPlatform
import NIOCore
import ServiceLifecycle
import Testing

@testable import DepotDaemon

@Suite("PreferringExecutor: a service of depotd's tree run on the source loop")
struct PreferringExecutorTests {
    /// Says, for its run and a child task of it, whether they ran on `loop`'s thread.
    final class Probe: Service {
        let loop: SourceLoop
        let seen = Locked<[Bool]>([])

        init(_ loop: SourceLoop) { self.loop = loop }

        func run() async throws {
            seen.withLock { $0.append(loop.eventLoop.inEventLoop) }
            await withDiscardingTaskGroup { group in
                group.addTask { self.seen.withLock { $0.append(self.loop.eventLoop.inEventLoop) } }
            }
        }
    }

    @Test("the service's run and its child tasks run on the executor; its name in the group's log is the service's")
    func runsOnTheExecutor() async throws {
        try await withSourceLoop { loop in
            let probe = Probe(loop)
            let wrapped = PreferringExecutor(probe, loop)
            try await wrapped.run()
            #expect(probe.seen.withLock { $0 } == [true, true])
            #expect(wrapped.description == String(describing: probe))
        }
    }
}
