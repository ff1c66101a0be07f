import DepotJSON
import DepotRPC
import DepotTestSupport
import NIOCore
import Testing

@Suite("EncodedMessage: one line, small pieces copied, large buffers shared")
struct EncodedMessageTests {
    /// Compact-enough JSON of exactly `count` bytes (at least 2): a string of `x`s.
    static func jsonString(bytes count: Int) -> String {
        "\"" + String(repeating: "x", count: count - 2) + "\""
    }

    /// JSON of exactly `count` bytes with whitespace a writer would never produce, so a re-encoding would show.
    static func spaciousJSON(bytes count: Int) -> String {
        let frame = #"{ "pad" :  "" }"#
        let padding = String(repeating: "y", count: count - frame.utf8.count)
        return #"{ "pad" :  "\#(padding)" }"#
    }

    @Test("buffers under 4096 bytes are copied into the line", arguments: [16, 100, 4095])
    func smallBufferIsCopied(size: Int) {
        let content = Self.spaciousJSON(bytes: size)
        let shared = buffer(content)
        var message = EncodedMessage()
        message.append(raw: "[")
        message.append(shared: shared)
        message.append(raw: "]")

        #expect(message.parts.isEmpty, "everything is still in the running buffer")
        let parts = message.finishLine()
        #expect(parts.count == 1)
        #expect(text(parts.flatMap(bytes(of:))) == "[\(content)]\n")
        #expect(!sameStorage(parts[0], shared))
    }

    @Test("buffers of 4096 bytes or more become their own part, not re-encoded", arguments: [4096, 4097, 100_000])
    func largeBufferIsShared(size: Int) throws {
        let content = Self.spaciousJSON(bytes: size)
        let shared = buffer(content)
        var message = EncodedMessage()
        message.append(raw: "[")
        message.append(shared: shared)
        #expect(message.parts.count == 2, "the bytes before it, then the shared buffer")
        message.append(raw: "]")

        let parts = message.finishLine()
        try #require(parts.count == 3)
        #expect(text(bytes(of: parts[0])) == "[")
        #expect(sameStorage(parts[1], shared), "the very same bytes, not a copy")
        #expect(bytes(of: parts[1]) == Array(content.utf8), "byte for byte what was given, whitespace included")
        #expect(text(bytes(of: parts[2])) == "]\n")
    }

    @Test func largeBufferFirstLeavesNoEmptyPart() throws {
        let shared = buffer(Self.jsonString(bytes: 5000))
        var message = EncodedMessage()
        message.append(shared: shared)
        let parts = message.finishLine()
        try #require(parts.count == 2)
        #expect(sameStorage(parts[0], shared))
        #expect(bytes(of: parts[1]) == [0x0A])
    }

    @Test func twoLargeBuffersInARow() throws {
        let first = buffer(Self.jsonString(bytes: 5000))
        let second = buffer(Self.jsonString(bytes: 6000))
        var message = EncodedMessage()
        message.append(raw: "[")
        message.append(shared: first)
        message.append(raw: ",")
        message.append(shared: second)
        message.append(raw: "]")
        let parts = message.finishLine()
        try #require(parts.count == 5)
        #expect(parts.map(\.readableBytes) == [1, 5000, 1, 6000, 2])
        #expect(sameStorage(parts[1], first))
        #expect(sameStorage(parts[3], second))
    }

    @Test func largeEncodedBodyIsShared() throws {
        let shared = buffer(Self.spaciousJSON(bytes: 8192))
        var message = EncodedMessage()
        RPCResponse(id: .number(JSONNumber(1)), outcome: .success(.encoded(shared))).encode(into: &message)
        let parts = message.finishLine()
        try #require(parts.count == 3)
        #expect(text(bytes(of: parts[0])) == #"{"jsonrpc":"2.0","id":1,"result":"#)
        #expect(sameStorage(parts[1], shared))
        #expect(text(bytes(of: parts[2])) == "}\n")
    }

    @Test func onlyTheReadableBytesOfASharedBufferCount() {
        var shared = buffer(String(repeating: "z", count: 1000) + Self.jsonString(bytes: 4000))
        shared.moveReaderIndex(forwardBy: 1000)
        var message = EncodedMessage()
        message.append(shared: shared)
        #expect(message.parts.isEmpty, "4000 readable bytes are under the threshold")
        #expect(shared.readableBytes == 4000, "the caller's buffer is untouched")
        #expect(text(message.lineBytes()) == Self.jsonString(bytes: 4000) + "\n")
    }

    // MARK: The newline

    @Test(
        "a finished line ends with exactly one newline",
        arguments: [
            "", "{}", "[1,2]",
        ])
    func finishLineAddsOneNewline(raw: String) {
        var message = EncodedMessage()
        message.append(shared: buffer(raw))
        let line = message.lineBytes()
        #expect(text(line) == raw + "\n")
    }

    /// Strings that must not break the line apart, and how they are written.
    @Test(
        "strings never put a newline or carriage return into the line",
        arguments: [
            ("a\nb", #""a\nb""#),
            ("\r\n", #""\r\n""#),
            ("\r", #""\r""#),
            ("tab\there", #""tab\there""#),
            ("\u{0}", #""\u0000""#),
            ("\u{1F}", #""\u001f""#),
            ("\u{8}\u{C}", #""\b\f""#),
            ("quote\"back\\slash", #""quote\"back\\slash""#),
            // U+2028 and U+2029 are escaped, so a reader splitting lines the Unicode way still sees one line;
            // NEL (U+0085) is written as UTF-8: none of its bytes is 0x0A or 0x0D.
            ("\u{2028}", #""\u2028""#),
            ("\u{2029}", #""\u2029""#),
            ("\u{85}", "\"\u{85}\""),
            ("\u{7F}", "\"\u{7F}\""),
            ("😀", "\"😀\""),
        ])
    func stringsStayOnOneLine(string: String, written: String) {
        var message = EncodedMessage()
        message.append(string: string)
        let line = message.lineBytes()
        #expect(line.count(where: { $0 == 0x0A }) == 1 && line.last == 0x0A)
        #expect(!line.contains(0x0D))
        #expect(text(line) == written + "\n")
        #expect(parseJSON(line.dropLast()) == .string(string))
    }

    @Test func longStringFullOfNewlinesStaysOnOneLine() {
        // Long enough for the writer's word-at-a-time scan and its chunked output.
        let string = String(repeating: "line\nline\r\u{2028}", count: 10_000)
        var message = EncodedMessage()
        message.append(json: ["text": .string(string), "key\nwith newline": true])
        let line = message.lineBytes()
        #expect(line.count(where: { $0 == 0x0A }) == 1 && line.last == 0x0A)
        #expect(!line.contains(0x0D))
        #expect(parseJSON(line.dropLast()) == ["text": .string(string), "key\nwith newline": true])
    }

    @Test func responseToAMethodNameWithANewlineIsOneLine() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"a\nb\u2028","id":1}"#, to: RequestIDTests.dispatcher)
            .immediateLine()
        expectLine(
            line,
            is:
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found: \\\"a\\nb\\u2028\\\"; this server has ping\"}}"
        )
    }

    // MARK: Other pieces

    @Test("integers", arguments: [0, -1, 42, Int.max, Int.min])
    func integers(value: Int) {
        var message = EncodedMessage()
        message.append(integer: value)
        #expect(text(message.lineBytes()) == "\(value)\n")
    }

    @Test func valuesAreWrittenCompactWithMemberOrderAndLiteralsKept() throws {
        let value = try #"{ "b" : [ 1.50 , 1e400 , null ] , "a" : { } , "b" : "again" }"#.json
        var message = EncodedMessage()
        message.append(json: value)
        #expect(text(message.lineBytes()) == #"{"b":[1.50,1e400,null],"a":{},"b":"again"}"# + "\n")
    }

    @Test func emptyMessageIsAnEmptyLine() {
        #expect(EncodedMessage().lineBytes() == [0x0A])
    }
}
