import DepotJSON
import DepotRPC
import DepotTestSupport
import NIOCore
import Testing

@Suite("Decoding lines: hostile and odd input is answered, never crashes")
struct DecodingRobustnessTests {
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("ping") { _, _ in .value("pong") },
        TestMethod("echo", params: ["a"]) { params, _ in .value(params.members["a"] ?? .null) },
    ])

    func expectParseError(_ bytes: [UInt8], _ detail: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let line = dispatch(bytes, to: Self.dispatcher).immediateLine(sourceLocation: sourceLocation)
        expectLine(
            line,
            is: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: \#(detail)"}}"#,
            sourceLocation: sourceLocation
        )
    }

    // MARK: Depth

    /// A deeply nested line, named so the test log does not print all of it.
    struct DeepLine: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        /// Where the parser notices: the bracket that would open level 513.
        let offset: Int

        var testDescription: String { name }
    }

    static let deepLines = [
        DeepLine(name: "10,000 open brackets", text: String(repeating: "[", count: 10_000), offset: 512),
        DeepLine(
            name: "10,000 balanced brackets",
            text: String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000),
            offset: 512
        ),
        DeepLine(name: "10,000 nested objects", text: String(repeating: #"{"a":"#, count: 10_000), offset: 2560),
        DeepLine(
            name: "a request with 10,000 nested arrays in its params",
            text: #"{"jsonrpc":"2.0","method":"echo","id":1,"params":{"a":"# + String(repeating: "[", count: 10_000),
            offset: 564
        ),
    ]

    @Test("nesting 10,000 deep is a parse error", arguments: deepLines)
    func tooDeep(_ deep: DeepLine) {
        expectParseError(Array(deep.text.utf8), "nesting deeper than 512 levels at byte \(deep.offset)")
    }

    @Test func nestingUpToTheLimitIsAccepted() {
        // The request object is level 1, params level 2, so 510 arrays make 512 levels.
        let nested = String(repeating: "[", count: 510) + String(repeating: "]", count: 510)
        let line = dispatch(#"{"jsonrpc":"2.0","method":"echo","id":1,"params":{"a":\#(nested)}}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":\#(nested)}"#)
    }

    @Test func depthLimitCanBeLowered() {
        guard case .unanswerable(let error) = IncomingMessage.decode(Array(#"[[[1]]]"#.utf8), maxDepth: 2) else {
            Issue.record("expected a parse error")
            return
        }
        #expect(error.code == RPCError.parseErrorCode)
        #expect(error.message == "Parse error: nesting deeper than 2 levels at byte 2")
    }

    // MARK: UTF-8

    static let methodPrefix = Array(#"{"jsonrpc":"2.0","method":""#.utf8)
    static let methodSuffix = Array(#"","id":1}"#.utf8)

    @Test(
        "invalid UTF-8 in a string is a parse error, even when the id is readable",
        arguments: [
            [0xFF],
            [0x80],
            [0xC0, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xE2, 0x82],  // cut short
            [0x61, 0x62, 0xC3],  // cut short after ASCII
        ] as [[UInt8]])
    func invalidUTF8InString(bad: [UInt8]) {
        let leading = bad.prefix(while: { $0 < 0x80 }).count
        expectParseError(Self.methodPrefix + bad + Self.methodSuffix, "invalid UTF-8 at byte \(27 + leading)")
    }

    @Test func invalidUTF8OutsideAStringIsAParseError() {
        expectParseError([0xFF] + Array("{}".utf8), "unexpected character 0xFF at byte 0")
    }

    @Test func validMultibyteUTF8IsAccepted() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"echo","params":{"a":"€😀é"},"id":1}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":"€😀é"}"#)
    }

    // MARK: Byte order mark, whitespace, empty lines

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    @Test func leadingByteOrderMarkIsAccepted() {
        let line = dispatch(Self.bom + Array(#"{"jsonrpc":"2.0","method":"ping","id":1}"#.utf8), to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
    }

    @Test func leadingByteOrderMarkBeforeABatchIsAccepted() {
        let line = dispatch(Self.bom + Array(#" [{"jsonrpc":"2.0","method":"ping","id":1}]"#.utf8), to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"[{"jsonrpc":"2.0","id":1,"result":"pong"}]"#)
    }

    @Test func byteOrderMarkAnywhereElseIsAParseError() {
        expectParseError(Array(" ".utf8) + Self.bom + Array("{}".utf8), "unexpected character 0xEF at byte 1")
        expectParseError(Self.bom + Self.bom + Array("{}".utf8), "unexpected character 0xEF at byte 3")
    }

    @Test("lines with no JSON value", arguments: [[], [0x20], [0x09, 0x0D], [0xEF, 0xBB, 0xBF]] as [[UInt8]])
    func emptyLine(bytes: [UInt8]) {
        expectParseError(bytes, "no JSON value in the text (empty or only whitespace)")
    }

    @Test func carriageReturnFromACRLFClientIsWhitespace() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"ping","id":1}"# + "\r", to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#)
    }

    @Test func twoValuesOnOneLineAreAParseError() {
        expectParseError(Array(#"{"jsonrpc":"2.0","method":"ping","id":1} {}"#.utf8), "unexpected content after the JSON value at byte 41")
    }

    @Test func decodingStraightFromABuffer() {
        let buffer = ByteBuffer(string: #"{"jsonrpc":"2.0","method":"ping","id":"b"}"#)
        let message = buffer.withUnsafeReadableBytes { IncomingMessage.decode($0) }
        let line = Self.dispatcher.dispatch(message, context: Journal()).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":"b","result":"pong"}"#)
    }

    // MARK: Classification

    @Test func classification() throws {
        guard case .single(.success(let request)) = IncomingMessage.classify(try #"{"jsonrpc":"2.0","method":"m","params":{"x":1}}"#.json) else {
            Issue.record("an object is a single request")
            return
        }
        #expect(request.method == "m")
        #expect(request.params == ["x": 1])
        #expect(request.id == nil)

        guard case .batch(let elements) = IncomingMessage.classify(try #"[{"jsonrpc":"2.0","method":"m","id":1},2]"#.json) else {
            Issue.record("a non-empty array is a batch")
            return
        }
        #expect(elements.count == 2)
        if case .success(let first) = elements[0] { #expect(first.id == .number(JSONNumber(1))) } else { Issue.record("first is valid") }
        if case .failure(let second) = elements[1] { #expect(second.id == .null) } else { Issue.record("second is invalid") }

        guard case .single(.failure(let invalid)) = IncomingMessage.classify("text") else {
            Issue.record("a string is a single invalid request")
            return
        }
        #expect(invalid.id == .null)
        #expect(invalid.error.code == RPCError.invalidRequestCode)
        #expect(invalid.error.message == "Invalid Request: expected a request object, found string")

        guard case .unanswerable(let empty) = IncomingMessage.classify([]) else {
            Issue.record("an empty array is answered with one error")
            return
        }
        #expect(empty.code == RPCError.invalidRequestCode)
    }
}
