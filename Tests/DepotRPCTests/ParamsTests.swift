import DepotJSON
import DepotRPC
import DepotTestSupport
import Testing

@Suite("Params: by name only, known names only, typed accessors")
struct ParamsTests {
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("state") { _, _ in .value("state") },
        TestMethod("get", params: ["id"]) { params, _ throws(RPCError) in
            .value(.string(try params.itemID("id")))
        },
        TestMethod("rename", params: ["id", "name"]) { params, _ throws(RPCError) in
            .value(["id": .string(try params.itemID("id")), "name": .string(try params.string("name"))])
        },
        TestMethod("remove", params: ["id", "force"]) { params, _ throws(RPCError) in
            .value(["id": .string(try params.itemID("id")), "force": .bool(try params.bool("force", default: false))])
        },
    ])

    /// Calls `method` with `params` (JSON text, or nil for no params member) and id 1.
    func call(_ method: String, params: String?) -> [UInt8]? {
        let paramsMember = params.map { #","params":\#($0)"# } ?? ""
        return dispatch(#"{"jsonrpc":"2.0","method":"\#(method)"\#(paramsMember),"id":1}"#, to: Self.dispatcher).immediateLine()
    }

    func expectResult(_ line: [UInt8]?, _ result: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"result":\#(result)}"#, sourceLocation: sourceLocation)
    }

    /// `message` is the text after "Invalid params: ", already escaped as in JSON.
    func expectInvalidParams(_ line: [UInt8]?, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectLine(
            line,
            is: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \#(message)"}}"#,
            sourceLocation: sourceLocation
        )
    }

    // MARK: Shape

    @Test("no params: absent, an empty array, an empty object", arguments: [nil, "[]", "{}"] as [String?])
    func noParams(params: String?) {
        expectResult(call("state", params: params), #""state""#)
    }

    @Test("an empty array is no params for a method that takes some, too")
    func emptyArrayMeansNoParams() {
        expectInvalidParams(call("get", params: "[]"), #"get needs \"id\""#)
    }

    @Test(
        "params by position are refused, with an example by name",
        arguments: [
            ("get", "[1]", #"get takes params by name, not by position: send an object such as {\"id\": …}"#),
            ("rename", #"["a","b"]"#, #"rename takes params by name, not by position: send an object such as {\"id\": …, \"name\": …}"#),
            ("state", "[null]", "state takes no params"),
        ])
    func positionalParamsAreRefused(method: String, params: String, message: String) {
        expectInvalidParams(call(method, params: params), message)
    }

    @Test func specPositionalExampleIsRefused() {
        // The spec's `{"method": "subtract", "params": [42, 23]}` (answered 19 there) is refused here.
        let line = dispatch(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#, to: SpecExampleMethods.dispatcher)
            .immediateLine()
        expectInvalidParams(
            line,
            #"subtract takes params by name, not by position: send an object such as {\"minuend\": …, \"subtrahend\": …}"#
        )
    }

    @Test(
        "unknown names are refused, naming them and what the method accepts",
        arguments: [
            ("get", #"{"id":"a","colour":"red"}"#, #"unknown param \"colour\"; get accepts id"#),
            ("get", #"{"x":1,"id":"a","y":2}"#, #"unknown params \"x\", \"y\"; get accepts id"#),
            ("get", #"{"colour":"red"}"#, #"unknown param \"colour\"; get accepts id"#),
            ("rename", #"{"id":"a","name":"b","Name":"c"}"#, #"unknown param \"Name\"; rename accepts id, name"#),
            ("state", #"{"x":1}"#, #"unknown param \"x\"; state takes no params"#),
            ("state", #"{"a\"b":1}"#, #"unknown param \"a\"b\"; state takes no params"#),
        ])
    func unknownNames(method: String, params: String, message: String) {
        expectInvalidParams(call(method, params: params), message)
    }

    @Test
    func repeatedUnknownNameIsNamedOnce() {
        expectInvalidParams(call("state", params: #"{"x":1,"x":2}"#), #"unknown param \"x\"; state takes no params"#)
    }

    @Test(
        "a required param that is missing",
        arguments: [
            ("get", nil, #"get needs \"id\""#),
            ("get", "{}", #"get needs \"id\""#),
            ("rename", #"{"id":"a"}"#, #"rename needs \"name\""#),
            ("rename", #"{"name":"b"}"#, #"rename needs \"id\""#),
            ("remove", #"{"force":true}"#, #"remove needs \"id\""#),
        ] as [(String, String?, String)])
    func missingRequired(method: String, params: String?, message: String) {
        expectInvalidParams(call(method, params: params), message)
    }

    // MARK: itemID

    @Test(
        "item ids: a non-empty string, or an integer as its decimal text",
        arguments: [
            (#""abc""#, #""abc""#),
            (#"" ""#, #"" ""#),
            ("42", #""42""#),
            ("0", #""0""#),
            ("-3", #""-3""#),
            ("12345678901234567890", #""12345678901234567890""#),
        ])
    func itemIDAccepted(id: String, result: String) {
        expectResult(call("get", params: #"{"id":\#(id)}"#), result)
    }

    /// `found` is the JSON text of a scalar, escaped as it appears inside the message; arrays and objects by type.
    @Test(
        "item ids of the wrong type",
        arguments: [
            ("true", "true"),
            ("false", "false"),
            ("1.5", "1.5"),
            ("1.0", "1.0"),
            ("1e3", "1e3"),
            (#""""#, #"\"\""#),
            ("null", "null"),
            ("[]", "an array"),
            (#"["a"]"#, "an array"),
            ("{}", "an object"),
        ])
    func itemIDRefused(id: String, found: String) {
        expectInvalidParams(call("get", params: #"{"id":\#(id)}"#), #"\"id\" must be a non-empty string or an integer, found \#(found)"#)
    }

    @Test func repeatedNameUsesTheLastValue() {
        expectResult(call("get", params: #"{"id":"a","id":"b"}"#), #""b""#)
    }

    // MARK: string

    @Test(
        "strings",
        arguments: [
            (#"{"id":"a","name":"b"}"#, #"{"id":"a","name":"b"}"#),
            (#"{"id":"a","name":""}"#, #"{"id":"a","name":""}"#),
            (#"{"name":"line\nbreak","id":7}"#, #"{"id":"7","name":"line\nbreak"}"#),
        ])
    func stringAccepted(params: String, result: String) {
        expectResult(call("rename", params: params), result)
    }

    @Test(
        "strings of the wrong type",
        arguments: [
            ("5", "5"),
            ("null", "null"),
            ("true", "true"),
            (#"["b"]"#, "an array"),
            (#"{"b":1}"#, "an object"),
        ])
    func stringRefused(name: String, found: String) {
        expectInvalidParams(call("rename", params: #"{"id":"a","name":\#(name)}"#), #"\"name\" must be a string, found \#(found)"#)
    }

    // MARK: bool

    @Test(
        "booleans, and their default when absent",
        arguments: [
            (#"{"id":"a"}"#, "false"),
            (#"{"id":"a","force":true}"#, "true"),
            (#"{"id":"a","force":false}"#, "false"),
        ])
    func boolAccepted(params: String, force: String) {
        expectResult(call("remove", params: params), #"{"id":"a","force":\#(force)}"#)
    }

    @Test(
        "a boolean param given something else",
        arguments: [
            (#""yes""#, #"\"yes\""#),
            (#""true""#, #"\"true\""#),
            ("1", "1"),
            ("0", "0"),
            ("null", "null"),
            ("[]", "an array"),
        ])
    func boolRefused(force: String, found: String) {
        expectInvalidParams(call("remove", params: #"{"id":"a","force":\#(force)}"#), #"\"force\" must be true or false, found \#(found)"#)
    }

    // MARK: In a batch

    @Test func paramsErrorsStayWithTheirElement() {
        let line = dispatch(
            #"[{"jsonrpc":"2.0","method":"get","params":{"id":true},"id":1},{"jsonrpc":"2.0","method":"get","params":{"id":"ok"},"id":2},{"jsonrpc":"2.0","method":"get","params":[1],"id":3}]"#,
            to: Self.dispatcher
        ).immediateLine()
        expectLine(
            line,
            is: #"""
                [{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"id\" must be a non-empty string or an integer, found true"}},\#
                {"jsonrpc":"2.0","id":2,"result":"ok"},\#
                {"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: get takes params by name, not by position: send an object such as {\"id\": …}"}}]
                """#)
    }
}
