import DepotRPC
import NIOCore
import NIOEmbedded
import Testing

@testable import DepotServer

/// The output side of a connection on an embedded channel: what it writes arrives in order, what it holds stays on
/// the books until the socket takes it, and answers left unread past their bound are reported.
@Suite("ConnectionOutput: writes, flushes and the books of what they hold")
struct ConnectionOutputTests {
    /// A handler that only lends its context to the output.
    final class Outlet: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
    }

    /// An embedded channel and an output writing to it, its memory on `account` (user nil).
    static func attached(account: ClientMemory = ClientMemory()) throws -> (EmbeddedChannel, ConnectionOutput) {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(Outlet())
        let output = ConnectionOutput(memory: ConnectionMemory(account: account))
        output.attach(try channel.pipeline.syncOperations.context(handlerType: Outlet.self))
        return (channel, output)
    }

    /// What the channel was given, as text, the empty buffers that mark a flush's end left out.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            if buffer.readableBytes > 0 { texts.append(String(buffer: buffer)) }
        }
        return texts
    }

    static func answer(_ text: String) -> EncodedMessage {
        var message = EncodedMessage()
        message.append(shared: ByteBuffer(string: text))
        return message
    }

    @Test("nothing reaches the channel before a flush; after it, everything in the order written")
    func flushSendsInOrder() throws {
        let (channel, output) = try Self.attached()
        output.emit(ByteBuffer(string: "one"))
        output.emit(ByteBuffer(string: "two"))
        #expect(try Self.written(channel).isEmpty, "written, not flushed")
        #expect(output.books.hasUnflushedOutput)
        output.flushIfNeeded()
        #expect(try Self.written(channel) == ["one", "two"])
        #expect(!output.books.hasUnflushedOutput)
        output.flushIfNeeded()
        #expect(try Self.written(channel).isEmpty, "nothing written since: nothing flushed")
    }

    @Test("what is written is held on the user's account until the socket takes it, then let go; `taken` says when")
    func heldUntilTaken() throws {
        let account = ClientMemory()
        let (channel, output) = try Self.attached(account: account)
        var takenCalls = 0
        output.taken = { takenCalls += 1 }
        let queued = ByteBuffer(repeating: 0x62, count: 2000)
        // As a subscription's queue holds the states it keeps.
        output.memory.hold(queued)
        output.emit(ByteBuffer(repeating: 0x61, count: 500))
        output.emit(queued, alreadyHeld: true)
        _ = output.memory.settle()
        #expect(account.byUser[nil] == 2500, "the queued state counted once, not twice")
        output.flush()
        // The embedded channel takes the bytes as it is flushed.
        #expect(takenCalls == 1)
        _ = output.memory.settle()
        #expect(account.byUser[nil] == nil, "the bytes the socket took leave the account")
        _ = try Self.written(channel)
    }

    @Test("answers left unread past the bound are reported, more than one of them; one alone always goes")
    func unreadAnswers() throws {
        let (channel, output) = try Self.attached()
        // The channel does not take anything: writes stay queued, as with a client that does not read.
        channel.isWritable = false
        let first = output.write(Self.answer(String(repeating: "a", count: 100)), unreadLimit: 50)
        #expect(first == nil, "the first answer goes, however large")
        let second = output.write(Self.answer("b"), unreadLimit: 50)
        #expect(second?.limit == .maxUnreadAnswerBytes)
        #expect(second?.reason.hasPrefix("it left 2 answers (103 bytes) unread") == true, "two unread, each with its newline")
        output.flush()
        let third = output.write(Self.answer("c"), unreadLimit: 1_000)
        #expect(third == nil, "taken by the socket: no longer unread")
        output.flush()
        #expect(try Self.written(channel) == [String(repeating: "a", count: 100) + "\n", "b\n", "c\n"])
    }

    @Test("after `flush(then:)` the body runs once what was written before has been taken")
    func flushThen() throws {
        let (channel, output) = try Self.attached()
        var order: [String] = []
        output.taken = { order.append("taken") }
        output.emit(ByteBuffer(string: "last words"))
        output.flush { order.append("then") }
        #expect(order == ["taken", "then"])
        #expect(try Self.written(channel) == ["last words"])
    }

    @Test("detached (the handler was removed), it writes nothing and holds nothing")
    func detached() throws {
        let account = ClientMemory()
        let (channel, output) = try Self.attached(account: account)
        output.attach(nil)
        output.emit(ByteBuffer(string: "lost"))
        #expect(output.write(Self.answer("lost"), unreadLimit: 0) == nil)
        output.flush()
        #expect(try Self.written(channel).isEmpty)
        _ = output.memory.settle()
        #expect(account.byUser.isEmpty)
    }
}
