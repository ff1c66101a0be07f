import DepotRPC
import NIOCore
import NIOEmbedded
import Testing

/// A `LineFrame` that tests can compare.
enum Frame: Equatable, CustomStringConvertible {
    case line(String)
    case tooLong(limit: Int)
    case unfinished(Int)

    init(_ frame: LineFrame) {
        switch frame {
        case .line(let buffer): self = .line(String(buffer: buffer))
        case .tooLong(let limit): self = .tooLong(limit: limit)
        case .unfinished(let bytes, let held):
            #expect(held >= bytes, "the buffer holds at least the line")
            self = .unfinished(bytes)
        }
    }

    var description: String {
        switch self {
        case .line(let text): "line(\(text.debugDescription))"
        case .tooLong(let limit): "tooLong(\(limit))"
        case .unfinished(let bytes): "unfinished(\(bytes))"
        }
    }
}

/// An `EmbeddedChannel` with a `LineFrameDecoder`, fed by the test.
final class DecoderHarness {
    let channel = EmbeddedChannel()

    init(maxLineBytes: Int) throws {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLineBytes)))
    }

    /// Feeds each string as one read and returns the frames decoded so far.
    func feed(_ reads: String...) throws -> [Frame] {
        try feed(reads)
    }

    func feed(_ reads: [String]) throws -> [Frame] {
        for read in reads {
            try channel.writeInbound(ByteBuffer(string: read))
        }
        return try frames()
    }

    /// The frames decoded and not yet taken; `.unfinished` only when asked for.
    func frames(includingUnfinished: Bool = false) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            let decoded = Frame(frame)
            if case .unfinished = decoded, !includingUnfinished { continue }
            frames.append(decoded)
        }
        return frames
    }

    /// The peer closed the connection: what was decoded at that moment.
    func closeInput() throws -> [Frame] {
        channel.pipeline.fireChannelInactive()
        return try frames()
    }

    /// The peer shut down its side only (half-closure).
    func halfClose() throws -> [Frame] {
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        return try frames()
    }

    deinit {
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}

@Suite("LineFrameDecoder: one frame per line, over-long lines reported once")
struct LineFrameDecoderTests {
    @Test func linesAreSplitAtNewlines() throws {
        let decoder = try DecoderHarness(maxLineBytes: 100)
        #expect(try decoder.feed("one\n") == [.line("one")])
        #expect(try decoder.feed("two\n") == [.line("two")])
    }

    @Test func severalLinesInOneRead() throws {
        let decoder = try DecoderHarness(maxLineBytes: 100)
        #expect(try decoder.feed("a\nbb\nccc\n") == [.line("a"), .line("bb"), .line("ccc")])
    }

    @Test func lineSplitAcrossReads() throws {
        let decoder = try DecoderHarness(maxLineBytes: 100)
        #expect(try decoder.feed(#"{"jsonrpc":"#).isEmpty)
        #expect(try decoder.feed(#""2.0","method""#).isEmpty)
        #expect(try decoder.feed(#":"ping"}"# + "\nnext") == [.line(#"{"jsonrpc":"2.0","method":"ping"}"#)])
        #expect(try decoder.feed("\n") == [.line("next")])
    }

    @Test func linesFedByteByByte() throws {
        let input = "first line\n{\"a\":[1,2]}\n\nlast\n"
        let decoder = try DecoderHarness(maxLineBytes: 12)
        let frames = try decoder.feed(input.map { String($0) })
        #expect(frames == [.line("first line"), .line(#"{"a":[1,2]}"#), .line(""), .line("last")])
    }

    @Test("any split of the input gives the same lines", arguments: 0...18)
    func everySplitPoint(split: Int) throws {
        let input = Array("alpha\nbeta\ngamma\n".utf8)
        let cut = min(split, input.count)
        let decoder = try DecoderHarness(maxLineBytes: 5)
        let frames = try decoder.feed(String(decoding: input[..<cut], as: UTF8.self), String(decoding: input[cut...], as: UTF8.self))
        #expect(frames == [.line("alpha"), .line("beta"), .line("gamma")])
    }

    @Test func emptyLinesAndCarriageReturnsAreDeliveredAsTheyAre() throws {
        // The decoder only splits; the JSON parser treats a trailing \r as whitespace.
        let decoder = try DecoderHarness(maxLineBytes: 100)
        #expect(try decoder.feed("\n\nx\r\n") == [.line(""), .line(""), .line("x\r")])
    }

    // MARK: The limit

    @Test func lineExactlyAtTheLimitPasses() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("12345678\n", "abcdefgh\n") == [.line("12345678"), .line("abcdefgh")])
    }

    @Test func lineExactlyAtTheLimitSplitBeforeItsNewlinePasses() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("12345678").isEmpty)
        #expect(try decoder.feed("\n") == [.line("12345678")])
    }

    @Test func oneByteOverTheLimitIsReportedOnceAndNothingAfterIsDecoded() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("ok\n123456789\nfine\n") == [.line("ok"), .tooLong(limit: 8)])
        #expect(try decoder.feed("more\n", "and more\n").isEmpty)
        #expect(try decoder.closeInput().isEmpty, "nothing is delivered at the end either")
    }

    @Test func overLongPartialLineIsReportedAsSoonAsItExceedsTheLimit() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("12345678").isEmpty, "at the limit, the line may still end")
        #expect(try decoder.feed("9") == [.tooLong(limit: 8)], "one byte over, no newline needed")
        #expect(try decoder.feed("\nok\n").isEmpty)
    }

    @Test func overLongLineInOneReadWithoutNewline() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed(String(repeating: "x", count: 100_000)) == [.tooLong(limit: 8)])
    }

    @Test func overLongLineFedByteByByteIsReportedAtTheNinthByte() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        for byte in "12345678" {
            #expect(try decoder.feed(String(byte)).isEmpty)
        }
        #expect(try decoder.feed("9") == [.tooLong(limit: 8)])
        #expect(try decoder.feed("0", "\n").isEmpty)
    }

    @Test func limitCountsTheLineNotTheBuffer() throws {
        // Lines already taken from the buffer do not count towards the next one.
        let decoder = try DecoderHarness(maxLineBytes: 4)
        #expect(try decoder.feed("abcd\nefgh\nij", "kl\n") == [.line("abcd"), .line("efgh"), .line("ijkl")])
    }

    @Test func limitOfZeroAllowsOnlyEmptyLines() throws {
        let decoder = try DecoderHarness(maxLineBytes: 0)
        #expect(try decoder.feed("\n\na\n") == [.line(""), .line(""), .tooLong(limit: 0)])
    }

    // MARK: End of input

    @Test func lastLineWithoutNewlineIsDeliveredWhenTheConnectionCloses() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("one\ntwo") == [.line("one")])
        #expect(try decoder.closeInput() == [.line("two")])
    }

    @Test func lastLineWithoutNewlineIsDeliveredOnHalfClosure() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("one\ntwo") == [.line("one")])
        #expect(try decoder.halfClose() == [.line("two")])
    }

    @Test func lastLineExactlyAtTheLimitIsDeliveredAtTheEnd() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("12345678").isEmpty)
        #expect(try decoder.closeInput() == [.line("12345678")])
    }

    @Test func nothingMoreAtTheEndAfterACompleteLine() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("one\n") == [.line("one")])
        #expect(try decoder.closeInput().isEmpty, "no empty line is invented at the end")
    }

    @Test func overLongLineReportedBeforeTheEndIsNotDeliveredAtTheEnd() throws {
        let decoder = try DecoderHarness(maxLineBytes: 8)
        #expect(try decoder.feed("123456789") == [.tooLong(limit: 8)])
        #expect(try decoder.closeInput().isEmpty)
    }
}

@Suite("LineFrameDecoder: unfinished lines")
struct UnfinishedLineTests {
    @Test("a line that begins without its newline is reported with its bytes each time more of it comes")
    func unfinished() throws {
        let harness = try DecoderHarness(maxLineBytes: 100)
        try harness.channel.writeInbound(ByteBuffer(string: "{\"a\""))
        try harness.channel.writeInbound(ByteBuffer(string: ":1"))
        #expect(try harness.frames(includingUnfinished: true) == [.unfinished(4), .unfinished(6)])
        try harness.channel.writeInbound(ByteBuffer(string: "}\n{\"b\""))
        #expect(try harness.frames(includingUnfinished: true) == [.line("{\"a\":1}"), .unfinished(4)])
        try harness.channel.writeInbound(ByteBuffer(string: ":2}\n"))
        #expect(try harness.frames(includingUnfinished: true) == [.line("{\"b\":2}")])
    }
}
