import DepotJSON
import DepotRPC
import DepotTestSupport
import NIOCore
import Testing

@Suite("Errors thrown by handlers, and RPCError itself")
struct HandlerErrorTests {
    /// Compact JSON large enough (≥ 4096 bytes) to be shared rather than copied.
    static let largeData: String = {
        let filler = String(repeating: "x", count: 5000)
        return #"{"state":"rolledBack","note":"\#(filler)"}"#
    }()

    static let dispatcher = TestDispatcher(methods: [
        TestMethod("notFound") { _, _ throws(RPCError) in
            throw RPCError(code: -32003, message: "no item \"x\"", data: .value(["id": "x"]))
        },
        TestMethod("refused") { _, _ throws(RPCError) in
            throw RPCError(code: -32002, message: "remove failed", data: .encoded(buffer(#"{"items":[],"phase":"idle"}"#)))
        },
        TestMethod("refusedLarge") { _, _ throws(RPCError) in
            throw RPCError(code: -32002, message: "remove failed", data: .encoded(buffer(largeData)))
        },
        TestMethod("plain") { _, _ throws(RPCError) in
            throw RPCError(code: -32004, message: "too many\nsubscriptions")
        },
        TestMethod("nullData") { _, _ throws(RPCError) in
            throw RPCError(code: -32000, message: "odd", data: .value(.null))
        },
    ])

    @Test(
        "thrown errors are answered with their code, message and data",
        arguments: [
            ("notFound", #"{"code":-32003,"message":"no item \"x\"","data":{"id":"x"}}"#),
            ("refused", #"{"code":-32002,"message":"remove failed","data":{"items":[],"phase":"idle"}}"#),
            ("plain", #"{"code":-32004,"message":"too many\nsubscriptions"}"#),
            ("nullData", #"{"code":-32000,"message":"odd","data":null}"#),
        ])
    func thrownError(method: String, error: String) {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"error":\#(error)}"#)
    }

    @Test func largeEncodedDataIsSharedNotCopied() throws {
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"refusedLarge","id":1}"#, to: Self.dispatcher)
        guard case .now(let message) = outcome else {
            Issue.record("expected .now, got .\(outcome.kind)")
            return
        }
        let parts = message.finishLine()
        try #require(parts.count == 3, "the response so far, the shared data, the rest of the line")
        #expect(bytes(of: parts[1]) == Array(Self.largeData.utf8))
        expectLine(
            message.lineBytes(),
            is: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"remove failed","data":\#(Self.largeData)}}"#
        )
    }

    @Test func thrownErrorInANotificationIsNotAnswered() {
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"notFound"}"#, to: Self.dispatcher)
        #expect(outcome.isNothing, "got .\(outcome.kind)")
    }

    // MARK: RPCError

    @Test(
        "the codes JSON-RPC defines, and their messages",
        arguments: [
            (RPCError.parseError("bad"), -32700, "Parse error: bad"),
            (RPCError.invalidRequest("bad"), -32600, "Invalid Request: bad"),
            (RPCError.methodNotFound("m", known: ["a", "b"]), -32601, #"Method not found: "m"; this server has a, b"#),
            (RPCError.methodNotFound("m", known: []), -32601, #"Method not found: "m""#),
            (RPCError.invalidParams("bad"), -32602, "Invalid params: bad"),
            (RPCError.internalError("bad"), -32603, "Internal error: bad"),
        ])
    func standardErrors(error: RPCError, code: Int, message: String) {
        #expect(error.code == code)
        #expect(error.message == message)
        #expect(error.data == nil)
        #expect(error.description == "\(message) (\(code))")
    }

    @Test func encodeResponseWritesResultOrError() {
        var ok = EncodedMessage()
        RPCResponse(id: .string("a"), outcome: .success(.value([1, "two"]))).encode(into: &ok)
        expectLine(ok.lineBytes(), is: #"{"jsonrpc":"2.0","id":"a","result":[1,"two"]}"#)

        var failed = EncodedMessage()
        RPCResponse(
            id: .number(JSONNumber(literal: "1e400")!),
            outcome: .failure(RPCError(code: -1, message: "m", data: .encoded(buffer("[true]"))))
        ).encode(into: &failed)
        expectLine(failed.lineBytes(), is: #"{"jsonrpc":"2.0","id":1e400,"error":{"code":-1,"message":"m","data":[true]}}"#)
    }
}
