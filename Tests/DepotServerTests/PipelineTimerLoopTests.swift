import DepotCore
import DepotJSON
import DepotOperators
import DepotTestSupport
import DepotWire
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import DepotServer

/// Where shared pipelines run their timers (throttle, debounce, delay, the linger after the last subscription).
@Suite("Shared pipelines: timers spread over the event loops")
struct PipelineTimerLoopTests {
    @Test("pipelines take the loops in turn, so every loop carries some and none carries all")
    func spread() throws {
        // Real loops: the pipelines arm their timers from their own queues, which an embedded loop does not allow.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        defer { try? group.syncShutdownGracefully() }
        let loops = Array(group.makeIterator())
        let repository = Repository(source: TestSource(count: 3), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            .running()
        let fanout = StateFanout(eventLoops: loops, epoch: "e1")
        repository.addObserver(fanout)
        var used: [ObjectIdentifier: Int] = [:]
        for count in 1...6 {
            let shared = try fanout.join(.operators(try Self.pipeline(#"[{"op":"throttle","seconds":1},{"op":"limit","count":\#(count)}]"#)))
            let loop = try #require(shared.timerLoop)
            used[ObjectIdentifier(loop as AnyObject), default: 0] += 1
        }
        #expect(used.count == 3, "six pipelines over three loops use all three")
        #expect(used.values.allSatisfy { $0 == 2 }, "two each: \(used.values)")

        let alone = StateFanout(eventLoops: [], epoch: "e1")
        repository.addObserver(alone)
        #expect(try alone.join(.operators(try Self.pipeline(#"[{"op":"limit","count":1}]"#))).timerLoop == nil, "no loops, no timer loop")
    }

    static func pipeline(_ text: String) throws -> Pipeline {
        try Pipeline(decoding: try JSONParser.parse(Array(text.utf8)))
    }
}
