import DepotJSON
import DepotRPC
import DepotTestSupport
import Testing

@Suite("Request ids: echoed exactly, invalid ones answered with null")
struct RequestIDTests {
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("ping") { _, _ in .value("pong") }
    ])

    /// The id as sent, and as it must come back; numbers keep their literal text.
    @Test(
        "valid ids are echoed",
        arguments: [
            (#""abc""#, #""abc""#),
            (#""""#, #""""#),
            (#""42""#, #""42""#),
            ("7", "7"),
            ("-7", "-7"),
            ("0", "0"),
            ("-0", "-0"),
            ("1.50", "1.50"),
            ("1e400", "1e400"),
            ("1E+2", "1E+2"),
            ("-1.5e-10", "-1.5e-10"),
            ("12345678901234567890", "12345678901234567890"),
            ("null", "null"),
            // Strings are echoed as the same string, written in the writer's minimal escaping.
            (#""\u00e9""#, #""é""#),
            (#""\/""#, #""/""#),
            (#""a\nb""#, #""a\nb""#),
            (#""q\"uote""#, #""q\"uote""#),
            (#""😀""#, #""😀""#),
        ])
    func validIDIsEchoed(sent: String, echoed: String) {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"ping","id":\#(sent)}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":\#(echoed),"result":"pong"}"#)
    }

    @Test(
        "ids of other types make the request invalid, answered with a null id",
        arguments: [
            ("true", "boolean"),
            ("false", "boolean"),
            ("{}", "object"),
            (#"{"a":1}"#, "object"),
            ("[]", "array"),
            ("[1]", "array"),
        ])
    func invalidIDType(sent: String, typeName: String) {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"ping","id":\#(sent)}"#, to: Self.dispatcher).immediateLine()
        expectLine(
            line,
            is:
                #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string, a number or null, not \#(typeName)"}}"#
        )
    }

    @Test(
        "an invalid request with a readable id is answered with that id",
        arguments: [
            (#"{"jsonrpc":"2.0","id":7}"#, "7", #"\"method\" is missing"#),
            (#"{"jsonrpc":"1.0","method":"ping","id":7}"#, "7", #"\"jsonrpc\" must be \"2.0\", found \"1.0\""#),
            (#"{"method":"ping","id":"x"}"#, #""x""#, #"\"jsonrpc\" must be \"2.0\", found nothing"#),
            (#"{"jsonrpc":2.0,"method":"ping","id":1.50}"#, "1.50", #"\"jsonrpc\" must be \"2.0\", found 2.0"#),
            (#"{"jsonrpc":"2.0","method":5,"id":7}"#, "7", #"\"method\" must be a string, not number"#),
            (#"{"jsonrpc":"2.0","method":null,"id":7}"#, "7", #"\"method\" must be a string, not null"#),
            (#"{"jsonrpc":"2.0","method":["ping"],"id":7}"#, "7", #"\"method\" must be a string, not array"#),
            (#"{"jsonrpc":"2.0","method":"ping","params":"bar","id":7}"#, "7", #"\"params\" must be an object or an array, not string"#),
            (#"{"jsonrpc":"2.0","method":"ping","params":null,"id":7}"#, "7", #"\"params\" must be an object or an array, not null"#),
            (#"{"jsonrpc":"2.0","method":"ping","params":3,"id":null}"#, "null", #"\"params\" must be an object or an array, not number"#),
        ])
    func invalidRequestEchoesItsID(request: String, id: String, detail: String) {
        let line = dispatch(request, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32600,"message":"Invalid Request: \#(detail)"}}"#)
    }

    @Test func invalidRequestWithoutIDIsStillAnswered() {
        // Without an id we cannot tell a broken notification from a broken call; the spec answers with null.
        let line = dispatch(#"{"jsonrpc":"2.0","method":"ping","params":"bar"}"#, to: Self.dispatcher).immediateLine()
        expectLine(
            line,
            is:
                #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"params\" must be an object or an array, not string"}}"#
        )
    }

    @Test func eachBatchElementEchoesItsOwnID() {
        let line = dispatch(
            #"[{"jsonrpc":"2.0","method":"ping","id":1.50},{"jsonrpc":"2.0","method":"ping","id":"b"},{"jsonrpc":"2.0","method":"ping","id":null},{"jsonrpc":"2.0","method":"ping","id":true}]"#,
            to: Self.dispatcher
        ).immediateLine()
        expectLine(
            line,
            is: #"""
                [{"jsonrpc":"2.0","id":1.50,"result":"pong"},\#
                {"jsonrpc":"2.0","id":"b","result":"pong"},\#
                {"jsonrpc":"2.0","id":null,"result":"pong"},\#
                {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string, a number or null, not boolean"}}]
                """#)
    }

    // MARK: The type itself

    @Test(
        "which JSON values are ids",
        arguments: [
            (JSONValue.string("a"), RequestID.string("a") as RequestID?),
            (.number(JSONNumber(literal: "1.50")!), .number(JSONNumber(literal: "1.50")!)),
            (.null, .null),
            (.bool(true), nil),
            (.array([]), nil),
            (.object([:]), nil),
        ])
    func initFromJSONValue(value: JSONValue, id: RequestID?) {
        #expect(RequestID(value) == id)
        if let id {
            #expect(id.jsonValue == value)
        }
    }

    @Test func descriptionIsTheJSONText() {
        #expect(RequestID.string("a\"b").description == #""a\"b""#)
        #expect(RequestID.number(JSONNumber(literal: "1e400")!).description == "1e400")
        #expect(RequestID.null.description == "null")
    }

    @Test func numbersWithTheSameValueButDifferentTextAreDifferentIDs() {
        #expect(RequestID.number(JSONNumber(literal: "1.50")!) != RequestID.number(JSONNumber(literal: "1.5")!))
    }

    @Test func requestWithoutIDIsANotification() throws {
        let request = try RPCRequest.validate(#"{"jsonrpc":"2.0","method":"ping"}"#.json).get()
        #expect(request.isNotification)
        #expect(request.id == nil)
        let withNullID = try RPCRequest.validate(#"{"jsonrpc":"2.0","method":"ping","id":null}"#.json).get()
        #expect(!withNullID.isNotification)
        #expect(withNullID.id == .null)
    }
}

extension String {
    /// The JSON value of this text; the test's own literal, so a parse failure is a broken test.
    var json: JSONValue {
        get throws { try JSONParser.parse(self) }
    }
}
