import DepotCore
import DepotJSON
import DepotPlatform
import DepotRPC
import DepotTestSupport
import DepotWire
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import DepotServer

/// A ConnectionHandler in a NIOAsyncTestingChannel, behind the real line decoder, with a repository on a test
/// source: the orderings that are hard to produce over a real socket, produced exactly.
struct ChannelBench {
    let channel: NIOAsyncTestingChannel
    let loop: NIOAsyncTestingEventLoop
    let source: TestSource
    let repository: Repository
    let fanout: StateFanout
    let handler: NIOLoopBound<ConnectionHandler>
    static let shutdownTimeout = TimeAmount.seconds(5)

    let memory: ClientMemory
    let log = LogRecorder()

    init(
        source: TestSource = TestSource(count: 3), limits: ConnectionLimits = ConnectionLimits(), extraHandlers: [any ChannelHandler & Sendable] = [],
        memory: ClientMemory = ClientMemory()
    ) async throws {
        self.memory = memory
        self.source = source
        loop = NIOAsyncTestingEventLoop()
        channel = NIOAsyncTestingChannel(loop: loop)
        repository = Repository(source: source, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })).running()
        fanout = StateFanout(eventLoops: [loop], epoch: "e1")
        repository.addObserver(fanout)
        let dispatcher = DepotMethods.dispatcher(repository: repository, fanout: fanout)
        let maxLineBytes = limits.maxMessageBytes
        let (fanout, limits, loop, repository, logger) = (fanout, LiveLimits(limits), loop, repository, log.logger())
        handler = try await loop.submit {
            let handler = ConnectionHandler(
                dispatcher: dispatcher, fanout: fanout, limits: limits, shutdownTimeout: ChannelBench.shutdownTimeout,
                logger: logger, memory: memory,
                dropQueuedMutations: { repository.dropQueued(by: $0) }
            )
            return NIOLoopBound(handler, eventLoop: loop)
        }.get()
        let connection = handler
        try await channel.pipeline.addHandlers(extraHandlers)
        try await loop.submit { [channel] in
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLineBytes)))
            try channel.pipeline.syncOperations.addHandler(connection.value)
        }.get()
        try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/depot-test")).get()
    }

    /// Sends `text` as client input.
    func send(_ text: String) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    /// Runs what was scheduled on the loop (answers hopping back, state deliveries).
    func run() async {
        await loop.run()
    }

    /// Every line written so far, parsed.
    func writtenLines() async throws -> [JSONValue] {
        var bytes: [UInt8] = []
        while let part = try await channel.readOutbound(as: ByteBuffer.self) {
            bytes += part.readableBytesView
        }
        return try bytes.split(separator: UInt8(ascii: "\n")).map { try JSONParser.parse(Array($0)) }
    }

    var phase: ConnectionStateMachine.Phase {
        get async throws {
            let handler = handler
            return try await loop.submit { handler.value.machine.phase }.get()
        }
    }

    /// Whether the channel has closed (after the loop ran what was scheduled).
    var isClosed: Bool {
        get async {
            await loop.run()
            return !channel.isActive
        }
    }

    /// Runs the loop until the channel has closed: after work that finishes on another thread (an answer the
    /// repository completes once it published the state) and hops back here.
    func runUntilClosed() async throws {
        let channel = channel
        try await withTimeout(.seconds(30), "the channel to close") { [loop] in
            while channel.isActive {
                await loop.run()
                await Task.yield()
            }
        }
    }

    func tearDown() async {
        _ = try? await channel.finish(acceptAlreadyClosed: true)
        await loop.shutdownGracefully()
    }
}

/// Fails every write of data after the first `allowed`, the way a socket fails when the peer is gone: the promise
/// fails and the channel closes.
final class FailingWrites: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    let allowed: Int
    private let count = Locked(0)

    init(allowing allowed: Int) {
        self.allowed = allowed
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An empty write carries no data (the connection marks where a flush's output ends with one): not counted.
        guard unwrapOutboundIn(data).readableBytes > 0 else {
            context.write(data, promise: promise)
            return
        }
        let number = count.withLock { count in
            count += 1
            return count
        }
        guard number > allowed else {
            context.write(data, promise: promise)
            return
        }
        promise?.fail(ChannelError.ioOnClosedChannel)
        context.close(promise: nil)
    }
}

/// A peer that does not read: every write is kept, its promise pending, as if the socket were full; they fail
/// when the channel closes.
final class UnreadWrites: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    private let kept = Locked<[(ByteBuffer, EventLoopPromise<Void>?)]>([])

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        kept.withLock { $0.append((buffer, promise)) }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        for (_, promise) in kept.withLock({ kept in
            defer { kept = [] }
            return kept
        }) {
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
        context.close(mode: mode, promise: promise)
    }

    /// Bytes kept, unwritten.
    var bytes: Int { kept.withLock { $0.reduce(0) { $0 + $1.0.readableBytes } } }
}

/// Does what a socket does with a half-close, which the testing channel turns into a full close: notes that
/// the output was closed and leaves the channel open for input.
final class HalfClose: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    private let closedOutput = Locked(false)

    var outputClosed: Bool { closedOutput.withLock { $0 } }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        closedOutput.withLock { $0 = true }
        promise?.succeed()
    }
}

@Suite("ConnectionHandler on a testing channel: the orderings a socket cannot pin down", .timeLimit(.minutes(1)))
struct ConnectionHandlerTests {
    @Test("closed while an answer is pending: the answer is withdrawn, nothing is written, the load still publishes")
    func closeWhileAnswerPending() async throws {
        let bench = try await ChannelBench()
        let gate = bench.source.holdNextFetch()
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"load"}"# + "\n")
        try await withTimeout { await bench.source.calls.wait { $0.fetchesStarted == 1 } }
        #expect(try await bench.phase == .answering)
        try await bench.channel.close()
        #expect(try await bench.phase == .closed)
        let recorder = StateRecorder()
        bench.repository.addObserver(recorder)
        gate.open()
        try await withTimeout { await recorder.states.wait { $0.last?.state.status == .success } }
        await bench.run()
        #expect(try await bench.writtenLines().isEmpty, "no answer goes to a closed connection")
        await bench.tearDown()
    }

    @Test("closed with mutations queued: those not started are dropped, the one under way still runs")
    func closeDropsQueuedMutations() async throws {
        let bench = try await ChannelBench(source: TestSource(count: 5))
        _ = try await bench.repository.load().result.get()
        let gate = bench.source.holdNextDelete()
        let removals = (1...4).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"remove","params":{"id":"\#($0)"}}"# }
        try await bench.send(removals.joined(separator: "\n") + "\n")
        try await withTimeout { await bench.source.calls.wait { $0.deletesStarted == 1 } }
        #expect(bench.repository.queuedMutations.values.reduce(0, +) == 3)
        try await bench.channel.close()
        #expect(bench.repository.queuedMutations.isEmpty, "the three not started were dropped")
        gate.open()
        try await withTimeout { await bench.source.calls.wait { $0.deletesFinished == 1 } }
        let after = try await bench.repository.load().result.get()
        #expect(bench.source.calls.value.deletedIDs == ["1"])
        #expect(after.state.items?.count == 4)
        await bench.tearDown()
    }

    @Test("a client that does not read: its lines wait unanswered while the socket is full, then are answered in order")
    func linesWaitWhileTheSocketIsFull() async throws {
        let bench = try await ChannelBench()
        bench.channel.isWritable = false
        let lines = (1...5).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"state"}"# }
        try await bench.send(lines.joined(separator: "\n") + "\n")
        await bench.run()
        #expect(try await bench.writtenLines().isEmpty, "nothing is answered, so nothing is buffered, while the client does not read")
        #expect(try await bench.phase == .answering)
        bench.channel.isWritable = true
        bench.channel.pipeline.fireChannelWritabilityChanged()
        await bench.run()
        #expect(try await bench.writtenLines().map { $0["id"] } == [1, 2, 3, 4, 5])
        #expect(try await bench.phase == .reading)
        await bench.tearDown()
    }

    @Test("lines read in one go past the bound on waiting requests are held, not queued as work; each runs as one finishes")
    func pendingRequestsBoundHoldsLinesReadInOneGo() async throws {
        var limits = ConnectionLimits()
        limits.maxPendingRequests = 2
        let bench = try await ChannelBench(source: TestSource(count: 8), limits: limits)
        _ = try await bench.repository.load().result.get()
        let gate = bench.source.holdNextDelete()
        let removals = (1...6).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"remove","params":{"id":"\#($0)"}}"# }
        try await bench.send(removals.joined(separator: "\n") + "\n")
        try await withTimeout { await bench.source.calls.wait { $0.deletesStarted == 1 } }
        #expect(bench.repository.queuedMutations.values.reduce(0, +) == 1, "two taken (one under way, one queued); four held")
        gate.open()
        try await withTimeout { await bench.source.calls.wait { $0.deletesFinished == 6 } }
        let answered = try await withTimeout {
            var answered: [JSONValue] = []
            while answered.count < 6 {
                await bench.run()
                answered += try await bench.writtenLines()
            }
            return answered
        }
        #expect(answered.compactMap { $0["id"]?.numberValue?.intValue }.sorted() == [1, 2, 3, 4, 5, 6])
        #expect(bench.source.calls.value.deletedIDs == ["1", "2", "3", "4", "5", "6"])
        await bench.tearDown()
    }

    @Test("a write that fails in the middle of a notification closes the connection and ends its subscriptions")
    func writeFailsMidNotification() async throws {
        // The subscribe answer and the first notification's three parts go out; the next notification's second part fails.
        let bench = try await ChannelBench(extraHandlers: [FailingWrites(allowing: 5)])
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        await bench.run()
        #expect(bench.fanout.subscriberCount == 1)
        let load = bench.repository.load()
        _ = try await load.result.get()
        await bench.run()
        #expect(await bench.isClosed)
        #expect(try await bench.phase == .closed)
        #expect(bench.fanout.subscriberCount == 0, "the subscription ended with the connection")
        _ = try await bench.repository.load().result.get()
        await bench.run()
        await bench.tearDown()
    }

    @Test("quiesced with subscribers and nothing pending: closes at once; subscriptions do not hold a shutdown")
    func quiesceWithSubscribers() async throws {
        let bench = try await ChannelBench()
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        await bench.run()
        #expect(try await bench.phase == .subscribed)
        bench.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        await bench.run()
        #expect(await bench.isClosed)
        #expect(bench.fanout.subscriberCount == 0)
        let lines = try await bench.writtenLines()
        #expect(lines.count == 2, "the subscribe answer and the current state went out before the close")
        await bench.tearDown()
    }

    @Test("quiesced with an answer pending: no more requests, the answer is written, then it closes")
    func quiesceWaitsForAnswers() async throws {
        let bench = try await ChannelBench()
        let gate = bench.source.holdNextFetch()
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"load"}"# + "\n")
        try await withTimeout { await bench.source.calls.wait { $0.fetchesStarted == 1 } }
        bench.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        await bench.run()
        #expect(try await bench.phase == .quiescing)
        let recorder = StateRecorder()
        bench.repository.addObserver(recorder)
        gate.open()
        try await withTimeout { await recorder.states.wait { $0.last?.state.status == .success } }
        // The answer follows the state from the repository's task: the connection closes once it is written.
        try await bench.runUntilClosed()
        let lines = try await bench.writtenLines()
        #expect(lines.map { $0["id"] } == [1])
        #expect(lines.first?["result"]?[StateMember.status] == "success")
        await bench.tearDown()
    }

    @Test("quiesced with an answer that never comes: closed at the shutdown deadline")
    func quiesceDeadline() async throws {
        let bench = try await ChannelBench()
        let gate = bench.source.holdNextFetch()
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"load"}"# + "\n")
        try await withTimeout { await bench.source.calls.wait { $0.fetchesStarted == 1 } }
        bench.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        await bench.loop.advanceTime(by: ChannelBench.shutdownTimeout - .milliseconds(1))
        #expect(try await bench.phase == .quiescing, "not before the deadline")
        await bench.loop.advanceTime(by: .milliseconds(1))
        #expect(await bench.isClosed)
        gate.open()
        await bench.tearDown()
    }

    @Test("the peer ends its input while subscribed: the connection stays and keeps delivering states")
    func halfCloseWhileSubscribed() async throws {
        let bench = try await ChannelBench()
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        await bench.run()
        bench.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try await bench.phase == .draining)
        _ = try await bench.repository.load().result.get()
        await bench.run()
        let seqs = try await bench.writtenLines().compactMap { NotificationHead(line: Array($0.jsonText.utf8))?.seq }
        #expect(seqs == [0, 1, 2])
        #expect(!(await bench.isClosed))
        await bench.tearDown()
    }

    @Test("an oversized line: answered, output closed, input dropped, cut off at the discard limit")
    func oversizedLine() async throws {
        let halfClose = HalfClose()
        let bench = try await ChannelBench(limits: ConnectionLimits(maxMessageBytes: 64), extraHandlers: [halfClose])
        try await bench.send(String(repeating: "x", count: 100))
        await bench.run()
        let phaseAfterRefusal = try await bench.phase
        #expect(phaseAfterRefusal == .discarding, "\(phaseAfterRefusal)")
        let answer = try await bench.writtenLines()
        #expect(answer.first?["error"]?["code"] == -32600)
        #expect(halfClose.outputClosed, "the answer went out, then the output was closed")
        try await bench.send(#"{"jsonrpc":"2.0","id":2,"method":"state"}"# + "\n")
        await bench.loop.advanceTime(by: ConnectionHandler.discardLimit)
        #expect(await bench.isClosed)
        #expect(try await bench.writtenLines().isEmpty, "nothing after the oversized line was answered")
        await bench.tearDown()
    }
}

@Suite("ConnectionHandler: memory held for a client, bounded", .timeLimit(.minutes(1)))
struct ConnectionHandlerMemoryTests {
    static let state = #"{"jsonrpc":"2.0","id":1,"method":"state"}"# + "\n"

    @Test("answers left unread past the bound close the connection, with the reason logged; one answer alone always goes")
    func unreadAnswers() async throws {
        var limits = ConnectionLimits()
        limits.maxUnreadAnswerBytes = 2048
        let unread = UnreadWrites()
        // 100 items: each state answer is about 3 KiB.
        let bench = try await ChannelBench(source: TestSource(count: 100), limits: limits, extraHandlers: [unread])
        _ = try await bench.repository.load().result.get()
        try await bench.send(Self.state)
        await bench.run()
        #expect(!(await bench.isClosed), "one answer, larger than the bound, is sent")
        #expect(unread.bytes > 2048)
        try await bench.send(Self.state)
        #expect(await bench.isClosed)
        #expect(bench.log.all.contains { $0.contains("answers") && $0.contains("unread, past --max-unread-answer-bytes (2048)") })
        #expect(bench.memory.byUser.isEmpty, "everything it held is let go")
        await bench.tearDown()
    }

    @Test("answers the client reads never close it, however many")
    func readAnswers() async throws {
        var limits = ConnectionLimits()
        limits.maxUnreadAnswerBytes = 4096
        let bench = try await ChannelBench(source: TestSource(count: 100), limits: limits)
        _ = try await bench.repository.load().result.get()
        var answered = 0
        for _ in 0..<20 {
            try await bench.send(Self.state)
            await bench.run()
            answered += try await bench.writtenLines().count
        }
        #expect(answered == 20)
        #expect(!(await bench.isClosed))
        await bench.tearDown()
    }

    @Test("an unfinished line past its user's memory bound: told why, then closed")
    func unfinishedLinePastUserBound() async throws {
        var limits = ConnectionLimits()
        limits.maxMemoryPerUser = 10_000
        let bench = try await ChannelBench(limits: limits)
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"method":"state","params":{"pad":""#)
        try await bench.send(String(repeating: "x", count: 5000))
        await bench.run()
        #expect(bench.memory.byUser[nil] ?? 0 > 5000)
        #expect(!(await bench.isClosed))
        try await bench.send(String(repeating: "x", count: 6000))
        #expect(await bench.isClosed)
        let lines = try await bench.writtenLines()
        #expect(lines.last?["error"]?["code"] == -32004)
        #expect(lines.last?["error"]?["message"]?.stringValue?.contains("--max-memory-per-user") == true)
        #expect(bench.memory.byUser.isEmpty && bench.memory.unfinished == 0)
        await bench.tearDown()
    }

    @Test("unfinished lines of all clients past their bound: the one that grows is told why and closed")
    func unfinishedLinesOfAll() async throws {
        var limits = ConnectionLimits()
        limits.maxUnfinishedLineBytes = 8000
        let memory = ClientMemory()
        // Another client's unfinished line already holds 5000 bytes.
        memory.addUnfinished(5000)
        let bench = try await ChannelBench(limits: limits, memory: memory)
        try await bench.send(#"{"jsonrpc":"2.0","id":1,"#)
        await bench.run()
        #expect(!(await bench.isClosed))
        try await bench.send(String(repeating: " ", count: 4000))
        #expect(await bench.isClosed)
        let lines = try await bench.writtenLines()
        #expect(lines.last?["error"]?["message"]?.stringValue?.contains("--max-unfinished-line-bytes") == true)
        #expect(memory.unfinished == 5000, "its own bytes are let go")
        await bench.tearDown()
    }

    @Test("one state queued for many subscriptions of a connection is counted once; a subscriber that never reads is cut off at the bound")
    func subscriptionsShareAState() async throws {
        var limits = ConnectionLimits()
        limits.maxMemoryPerUser = 64 * 1024
        let unread = UnreadWrites()
        let bench = try await ChannelBench(source: TestSource(count: 200), limits: limits, extraHandlers: [unread])
        let subscribe = #"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n"
        try await bench.send(String(repeating: subscribe, count: 10))
        await bench.run()
        _ = try await bench.repository.load().result.get()
        await bench.run()
        let encoded = bench.fanout.current.snapshot.readableBytes
        let held = bench.memory.byUser[nil] ?? 0
        #expect(encoded > 5000)
        #expect(held >= encoded && held < 2 * encoded, "ten subscriptions hold the one state once (\(held) bytes for a state of \(encoded))")
        #expect(!(await bench.isClosed))
        // Each new success is another state the stalled subscriber holds: past 64 KiB it is cut off.
        func cutOff() -> Bool { bench.log.all.contains { $0.contains("past --max-memory-per-user (65536)") } }
        for id in 1...40 where !cutOff() {
            _ = try await bench.repository.remove(id: "\(id)", optimistic: true).result.get()
            await bench.run()
        }
        #expect(cutOff())
        // It was told why; its socket never takes that line, so it closes a second later.
        await bench.loop.advanceTime(by: .seconds(1))
        #expect(await bench.isClosed)
        #expect(bench.memory.byUser.isEmpty)
        await bench.tearDown()
    }
}
