import DepotJSON
import DepotRPC
import DepotTestSupport
import Testing

/// The methods of the examples in section 7 of the JSON-RPC 2.0 specification
/// (https://www.jsonrpc.org/specification#examples), taking their params by name since Depot refuses params
/// by position: `[42, 23]` becomes `{"minuend": 42, "subtrahend": 23}`, `[1,2,4]` becomes `{"values": [1,2,4]}`,
/// `[7]` becomes `{"value": 7}`.
enum SpecExampleMethods {
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("subtract", params: ["minuend", "subtrahend"]) { params, _ throws(RPCError) in
            .value(.number(JSONNumber(try params.integer("minuend") - params.integer("subtrahend"))))
        },
        TestMethod("sum", params: ["values"]) { params, _ throws(RPCError) in
            .value(.number(JSONNumber(try params.integers("values").reduce(0, +))))
        },
        TestMethod("update", params: ["values"]) { params, journal throws(RPCError) in
            journal.record("update \(try params.integers("values"))")
            return .value(.null)
        },
        TestMethod("notify_hello", params: ["value"]) { params, journal throws(RPCError) in
            journal.record("notify_hello \(try params.integer("value"))")
            return .value(.null)
        },
        TestMethod("notify_sum", params: ["values"]) { params, journal throws(RPCError) in
            journal.record("notify_sum \(try params.integers("values").reduce(0, +))")
            return .value(.null)
        },
        TestMethod("get_data") { _, _ in
            .value(["hello", 5])
        },
    ])

    static let known = "get_data, notify_hello, notify_sum, subtract, sum, update"
}

/// One example: what the client sends, what the spec answers, and exactly what we answer.
struct SpecExample: Sendable, CustomTestStringConvertible {
    let name: String
    let request: String
    let specResponse: String
    let ourResponse: String

    var testDescription: String { name }
}

@Suite("Dispatcher: the JSON-RPC 2.0 specification's examples")
struct DispatcherSpecExamplesTests {
    static let answered: [SpecExample] = [
        SpecExample(
            name: "rpc call with named parameters",
            request: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
            specResponse: #"{"jsonrpc": "2.0", "result": 19, "id": 3}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":3,"result":19}"#
        ),
        SpecExample(
            name: "rpc call with named parameters, other order",
            request: #"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
            specResponse: #"{"jsonrpc": "2.0", "result": 19, "id": 4}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":4,"result":19}"#
        ),
        SpecExample(
            name: "rpc call of non-existent method",
            request: #"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
            specResponse: #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#,
            ourResponse:
                #"{"jsonrpc":"2.0","id":"1","error":{"code":-32601,"message":"Method not found: \"foobar\"; this server has get_data, notify_hello, notify_sum, subtract, sum, update"}}"#
        ),
        SpecExample(
            name: "rpc call with invalid JSON",
            request: #"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
            specResponse: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected character 'p' at byte 39"}}"#
        ),
        SpecExample(
            name: "rpc call with invalid Request object",
            request: #"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
            specResponse: #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string, not number"}}"#
        ),
        SpecExample(
            name: "rpc call Batch, invalid JSON",
            request: #"[{"jsonrpc": "2.0", "method": "sum", "params": {"values": [1,2,4]}, "id": "1"},{"jsonrpc": "2.0", "method"]"#,
            specResponse: #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected character ']' at byte 106"}}"#
        ),
        SpecExample(
            name: "rpc call with an empty Array",
            request: #"[]"#,
            specResponse: #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#,
            ourResponse: #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an empty batch has nothing to do"}}"#
        ),
        SpecExample(
            name: "rpc call with an invalid Batch (but not empty)",
            request: #"[1]"#,
            specResponse: #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#,
            ourResponse:
                #"[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found number"}}]"#
        ),
        SpecExample(
            name: "rpc call with invalid Batch",
            request: #"[1,2,3]"#,
            specResponse: #"""
                [{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},\#
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},\#
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]
                """#,
            ourResponse: #"""
                [{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found number"}},\#
                {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found number"}},\#
                {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found number"}}]
                """#
        ),
        SpecExample(
            name: "rpc call Batch",
            request: #"""
                [{"jsonrpc": "2.0", "method": "sum", "params": {"values": [1,2,4]}, "id": "1"},\#
                {"jsonrpc": "2.0", "method": "notify_hello", "params": {"value": 7}},\#
                {"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": "2"},\#
                {"foo": "boo"},\#
                {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},\#
                {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
                """#,
            specResponse: #"""
                [{"jsonrpc": "2.0", "result": 7, "id": "1"},\#
                {"jsonrpc": "2.0", "result": 19, "id": "2"},\#
                {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},\#
                {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},\#
                {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]
                """#,
            ourResponse: #"""
                [{"jsonrpc":"2.0","id":"1","result":7},\#
                {"jsonrpc":"2.0","id":"2","result":19},\#
                {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\", found nothing"}},\#
                {"jsonrpc":"2.0","id":"5","error":{"code":-32601,"message":"Method not found: \"foo.get\"; this server has get_data, notify_hello, notify_sum, subtract, sum, update"}},\#
                {"jsonrpc":"2.0","id":"9","result":["hello",5]}]
                """#
        ),
    ]

    @Test("answered as the spec says, with our exact bytes", arguments: answered)
    func answeredExample(_ example: SpecExample) {
        let line = dispatch(example.request, to: SpecExampleMethods.dispatcher).immediateLine()
        expectSpecResponse(line, matches: example.specResponse)
        expectLine(line, is: example.ourResponse)
    }

    @Test func notificationsAreExecutedButNeverAnswered() {
        let journal = Journal()
        let update = dispatch(
            #"{"jsonrpc": "2.0", "method": "update", "params": {"values": [1,2,3,4,5]}}"#,
            to: SpecExampleMethods.dispatcher, context: journal
        )
        let foobar = dispatch(#"{"jsonrpc": "2.0", "method": "foobar"}"#, to: SpecExampleMethods.dispatcher, context: journal)

        #expect(update.isNothing, "got .\(update.kind)")
        #expect(foobar.isNothing, "a notification of an unknown method is not answered either; got .\(foobar.kind)")
        #expect(journal.recorded == ["update [1, 2, 3, 4, 5]"])
    }

    @Test func batchOfNotificationsOnlyWritesNoLine() {
        let journal = Journal()
        let outcome = dispatch(
            #"[{"jsonrpc": "2.0", "method": "notify_sum", "params": {"values": [1,2,4]}},{"jsonrpc": "2.0", "method": "notify_hello", "params": {"value": 7}}]"#,
            to: SpecExampleMethods.dispatcher, context: journal
        )
        #expect(outcome.isNothing, "got .\(outcome.kind)")
        #expect(journal.recorded == ["notify_sum 7", "notify_hello 7"])
    }

    @Test func batchRunsItsNotificationsInOrderAndLeavesThemOutOfTheAnswer() {
        let journal = Journal()
        let line = dispatch(
            #"""
            [{"jsonrpc":"2.0","method":"notify_hello","params":{"value":1}},\#
            {"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":3},"id":1},\#
            {"jsonrpc":"2.0","method":"notify_hello","params":{"value":2}}]
            """#,
            to: SpecExampleMethods.dispatcher, context: journal
        ).immediateLine()
        expectLine(line, is: #"[{"jsonrpc":"2.0","id":1,"result":2}]"#)
        #expect(journal.recorded == ["notify_hello 1", "notify_hello 2"])
    }

    @Test func notificationWithBadParamsIsNotAnswered() {
        let journal = Journal()
        let outcome = dispatch(
            #"{"jsonrpc":"2.0","method":"notify_hello","params":{"value":"seven"}}"#,
            to: SpecExampleMethods.dispatcher, context: journal
        )
        #expect(outcome.isNothing, "got .\(outcome.kind)")
        #expect(journal.recorded.isEmpty)
    }

    @Test func batchOfOneIsAnsweredWithAnArrayOfOne() {
        let line = dispatch(#"[{"jsonrpc":"2.0","method":"get_data","id":1}]"#, to: SpecExampleMethods.dispatcher).immediateLine()
        expectLine(line, is: #"[{"jsonrpc":"2.0","id":1,"result":["hello",5]}]"#)
    }

    @Test func nestedArrayInABatchIsAnInvalidElement() {
        let line = dispatch(#"[[],{"jsonrpc":"2.0","method":"get_data","id":1}]"#, to: SpecExampleMethods.dispatcher).immediateLine()
        expectLine(
            line,
            is: #"""
                [{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found array"}},\#
                {"jsonrpc":"2.0","id":1,"result":["hello",5]}]
                """#)
    }

    @Test func requestMembersBeyondTheSpecsAreIgnored() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"get_data","id":1,"extra":{"x":[1]},"version":3}"#, to: SpecExampleMethods.dispatcher)
            .immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":["hello",5]}"#)
    }

    static let registeredTwice = TestDispatcher(methods: [
        TestMethod("state") { _, _ in .value("first") },
        TestMethod("get") { _, _ in .value("get") },
        TestMethod("state") { _, _ in .value("second") },
    ])

    @Test func laterMethodWithTheSameNameReplacesTheEarlierOne() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"state","id":1}"#, to: Self.registeredTwice).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":"second"}"#)
    }

    @Test
    func methodRegisteredTwiceIsListedOnce() {
        #expect(Self.registeredTwice.methodNames == ["get", "state"])
    }

    @Test func methodNamesAreSorted() {
        #expect(SpecExampleMethods.dispatcher.methodNames == ["get_data", "notify_hello", "notify_sum", "subtract", "sum", "update"])
    }
}
