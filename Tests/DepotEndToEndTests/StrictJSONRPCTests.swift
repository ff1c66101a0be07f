import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// JSON-RPC 2.0's edge cases, each sent to the real depotd as one line, each with the exact answer it must get.
/// Where the spec leaves a choice, the table records the one Depot makes (see the comments).
@Suite("depotd: strict JSON-RPC 2.0, exact answers")
struct StrictJSONRPCTests {
    enum Answer: Sendable {
        /// Exactly these lines, in this order.
        case lines([String])
        /// No line at all (notifications, empty lines).
        case nothing
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let input: [UInt8]
        let answer: Answer

        init(_ name: String, _ input: String, _ answer: Answer) {
            self.init(name, Array(input.utf8), answer)
        }

        init(_ name: String, _ input: [UInt8], _ answer: Answer) {
            self.name = name
            self.input = input
            self.answer = answer
        }

        var testDescription: String { name }
    }

    /// Stands for the daemon run's epoch in the expected answers; each case fills in the one its daemon has.
    static let epochPlaceholder = "<epoch>"
    static let idle = #"{"seq":0,"epoch":"<epoch>","status":"idle"}"#
    static let methods =
        "apply, get, load, patch, pipelines.delete, pipelines.get, pipelines.list, pipelines.put, put, remove, rpc.discover, state, stats, subscribe, unsubscribe, whoami, wipe"

    static func result(_ id: String, _ result: String = idle) -> Answer {
        .lines([#"{"jsonrpc":"2.0","id":\#(id),"result":\#(result)}"#])
    }

    static func error(_ id: String, _ code: Int, _ message: String) -> Answer {
        .lines([#"{"jsonrpc":"2.0","id":\#(id),"error":{"code":\#(code),"message":\#(JSONValue.string(message).jsonText)}}"#])
    }

    static let cases: [Case] = [
        // Ids of every JSON type: strings and numbers are echoed exactly as written (the literal, not a
        // re-formatted number); null is a valid id (answered with null); objects, arrays and booleans are not.
        Case("string id", #"{"jsonrpc":"2.0","id":"abc","method":"state"}"#, result(#""abc""#)),
        Case("integer id", #"{"jsonrpc":"2.0","id":7,"method":"state"}"#, result("7")),
        Case("fractional id, echoed as written", #"{"jsonrpc":"2.0","id":1.50,"method":"state"}"#, result("1.50")),
        Case("negative zero id", #"{"jsonrpc":"2.0","id":-0,"method":"state"}"#, result("-0")),
        Case("id too large for a double", #"{"jsonrpc":"2.0","id":1e400,"method":"state"}"#, result("1e400")),
        Case(
            "id too long for a 64-bit integer", #"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"state"}"#,
            result("123456789012345678901234567890")),
        Case("null id", #"{"jsonrpc":"2.0","id":null,"method":"state"}"#, result("null")),
        Case(
            "object id", #"{"jsonrpc":"2.0","id":{"a":1},"method":"state"}"#,
            error("null", -32600, #"Invalid Request: "id" must be a string, a number or null, not object"#)),
        Case(
            "array id", #"{"jsonrpc":"2.0","id":[1],"method":"state"}"#,
            error("null", -32600, #"Invalid Request: "id" must be a string, a number or null, not array"#)),
        Case(
            "boolean id", #"{"jsonrpc":"2.0","id":true,"method":"state"}"#,
            error("null", -32600, #"Invalid Request: "id" must be a string, a number or null, not boolean"#)),

        // The jsonrpc member. Choice: an invalid request whose id could be read is answered with that id.
        Case(
            "jsonrpc 1.0", #"{"jsonrpc":"1.0","id":1,"method":"state"}"#,
            error("1", -32600, #"Invalid Request: "jsonrpc" must be "2.0", found "1.0""#)),
        Case("jsonrpc missing", #"{"id":1,"method":"state"}"#, error("1", -32600, #"Invalid Request: "jsonrpc" must be "2.0", found nothing"#)),
        Case(
            "jsonrpc as a number", #"{"jsonrpc":2.0,"id":1,"method":"state"}"#,
            error("1", -32600, #"Invalid Request: "jsonrpc" must be "2.0", found 2.0"#)),

        // The method member.
        Case("method missing", #"{"jsonrpc":"2.0","id":1}"#, error("1", -32600, #"Invalid Request: "method" is missing"#)),
        Case(
            "method not a string", #"{"jsonrpc":"2.0","id":1,"method":5}"#,
            error("1", -32600, #"Invalid Request: "method" must be a string, not number"#)),
        Case(
            "empty method name", #"{"jsonrpc":"2.0","id":1,"method":""}"#, error("1", -32601, #"Method not found: ""; this server has \#(methods)"#)),
        Case(
            "unknown rpc. method", #"{"jsonrpc":"2.0","id":1,"method":"rpc.ping"}"#,
            error("1", -32601, #"Method not found: "rpc.ping"; this server has \#(methods)"#)),

        // Params. Depot takes params by name. Choice: an array is -32602 (the request is valid JSON-RPC, the
        // params are not what the method takes), except an empty one, which is no params; a string is not a
        // structured value at all, so -32600; null is not allowed by the spec either.
        Case(
            "params by position", #"{"jsonrpc":"2.0","id":1,"method":"get","params":[1]}"#,
            error(
                "1", -32602, #"Invalid params: get takes params by name, not by position: send an object such as {"id": …, "pipeline": …, "meta": …}"#
            )),
        Case("empty params array", #"{"jsonrpc":"2.0","id":1,"method":"state","params":[]}"#, result("1")),
        Case(
            "params a string", #"{"jsonrpc":"2.0","id":1,"method":"get","params":"1"}"#,
            error("1", -32600, #"Invalid Request: "params" must be an object or an array, not string"#)),
        Case(
            "params null", #"{"jsonrpc":"2.0","id":1,"method":"state","params":null}"#,
            error("1", -32600, #"Invalid Request: "params" must be an object or an array, not null"#)),
        Case(
            "unknown param names", #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":1,"colour":"red","size":2}}"#,
            error("1", -32602, #"Invalid params: unknown params "colour", "size"; get accepts id, pipeline, meta"#)),
        Case(
            "missing required param", #"{"jsonrpc":"2.0","id":1,"method":"get","params":{}}"#, error("1", -32602, #"Invalid params: get needs "id""#)),
        Case(
            "param of the wrong type", #"{"jsonrpc":"2.0","id":1,"method":"unsubscribe","params":{"subscription":5}}"#,
            error("1", -32602, #"Invalid params: "subscription" must be a string, found 5"#)),
        Case(
            "a number too large for a double as an id param", #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":1e400}}"#,
            error("1", -32602, #"Invalid params: "id" must be a non-empty string or an integer, found 1e400"#)),
        Case(
            "an integer too long for 64 bits as an id param",
            #"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":123456789012345678901234567890}}"#,
            error("1", -32003, #"no item "123456789012345678901234567890": no items are loaded (the state is idle); run load first"#)),

        // Members JSON-RPC does not define are ignored; a repeated member counts as its last value.
        Case("an extra member", #"{"jsonrpc":"2.0","id":5,"method":"state","extra":true}"#, result("5")),
        Case("a repeated id", #"{"jsonrpc":"2.0","id":6,"id":7,"method":"state"}"#, result("7")),

        // Batches. Choice: duplicate ids in a batch are each answered (the spec does not forbid them; telling
        // the answers apart is the client's business); answers keep the batch's order.
        Case(
            "duplicate ids in one batch", #"[{"jsonrpc":"2.0","id":1,"method":"state"},{"jsonrpc":"2.0","id":1,"method":"nope"}]"#,
            .lines([
                #"[{"jsonrpc":"2.0","id":1,"result":\#(idle)},{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: \"nope\"; this server has \#(methods)"}}]"#
            ])),
        Case(
            "a batch over the limit (4 here)", "[1,2,3,4,5]",
            error(
                "null", -32600,
                "Invalid Request: a batch of 5 requests is more than this server's limit of 4; none of it was run: send at most 4 at a time")),
        Case(
            "a batch at the limit", "[1,2,3,4]",
            .lines([
                "["
                    + Array(
                        repeating:
                            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: expected a request object, found number"}}"#,
                        count: 4
                    ).joined(separator: ",") + "]"
            ])),

        // Text. Strings carry any Unicode; escaped newlines stay escaped in the answer, and so do U+2028/2029.
        Case(
            "unicode and escaped newlines", #"{"jsonrpc":"2.0","id":"café\n☃","method":"get","params":{"id":"é\n\u2028"}}"#,
            error(#""café\n☃""#, -32003, "no item \"é\n\u{2028}\": no items are loaded (the state is idle); run load first")),
        Case("leading and trailing whitespace", "   {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"state\"}   \t", result("2")),
        Case("CRLF line ending", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"state\"}\r", result("3")),
        Case("an empty line", "", .nothing),
        Case("a line of whitespace", " \t\r", .nothing),
        // Choice: a UTF-8 byte order mark before the JSON is ignored (RFC 8259 lets parsers ignore it).
        Case("a byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"jsonrpc":"2.0","id":4,"method":"state"}"#.utf8), result("4")),
        Case(
            "nesting 10,000 levels deep", String(repeating: "[", count: 10_000),
            error("null", -32700, "Parse error: nesting deeper than 512 levels at byte 512")),
        Case("invalid UTF-8", [0x22, 0xC3, 0x28, 0x22], error("null", -32700, "Parse error: invalid UTF-8 at byte 1")),
        Case("not JSON", "{id: 1}", error("null", -32700, "Parse error: unexpected character 'i' at byte 1")),

        // Notifications are executed and never answered, even when they fail.
        Case("a notification of an unknown method", #"{"jsonrpc":"2.0","method":"nope"}"#, .nothing),
        Case("a notification with bad params", #"{"jsonrpc":"2.0","method":"get","params":{"id":true}}"#, .nothing),
    ]

    @Test("every case gets exactly its answer", arguments: cases)
    func exactAnswer(_ example: Case) async throws {
        try await StrictJSONRPCTests.withStrictDaemon { socket in
            try socket.send(#"{"jsonrpc":"2.0","id":"epoch","method":"state"}"# + "\n")
            let probe = try JSONParser.parse(try #require(try await socket.readLine(), "the connection closed"))
            let epoch = try #require(probe["result"]?["epoch"]?.stringValue)
            try socket.send(bytes: example.input + [UInt8(ascii: "\n")])
            // A sentinel request after each case: everything before its answer is the case's answer.
            try socket.send(#"{"jsonrpc":"2.0","id":"sentinel","method":"state"}"# + "\n")
            var lines: [String] = []
            while true {
                let line = try #require(try await socket.readLine(), "the connection closed")
                let text = String(decoding: line, as: UTF8.self)
                if text.hasPrefix(#"{"jsonrpc":"2.0","id":"sentinel""#) { break }
                lines.append(text)
            }
            switch example.answer {
            case .nothing:
                #expect(lines.isEmpty, "\(example.name): \(lines)")
            case .lines(let expected):
                #expect(lines == expected.map { $0.replacingOccurrences(of: Self.epochPlaceholder, with: epoch) }, "\(example.name)")
            }
        }
    }

    /// A daemon with nothing loaded and a batch limit of 4, and a raw connection to it.
    static func withStrictDaemon(_ body: @escaping @Sendable (RawSocket) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(2, in: directory)
        try await withDaemon(["--source", source, "--no-initial-load", "--max-batch-requests", "4"], directory: directory) { daemon in
            try await body(try daemon.rawSocket())
        }
    }
}
