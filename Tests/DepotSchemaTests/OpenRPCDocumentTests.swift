import DepotJSON
import DepotSchema
import DepotTestSupport
import DepotWire
import Testing

/// rpc-schema/openrpc.json read as the checks read it, its examples held to its own schemas, and the checks
/// shown to catch what they are for.
@Suite("rpc-schema/openrpc.json: readable, self-consistent, and its checks catch wrong messages")
struct OpenRPCDocumentTests {
    @Test("the document lists every method and the stateChanged, heartbeat and subscriptionEnded notifications, and applies every keyword")
    func methods() throws {
        let document = try depotDocument()
        #expect(
            document.calledMethodNames == [
                "state", "get", "load", "remove", "put", "patch", "apply", "wipe", "subscribe", "unsubscribe", "pipelines.put", "pipelines.get",
                "pipelines.list", "pipelines.delete", "whoami", "stats", "rpc.discover",
            ])
        #expect(document.notificationNames == ["stateChanged", "heartbeat", "subscriptionEnded"])
        #expect(document.unsupportedKeywords.map(\.description) == [])
    }

    @Test("the document built into the binaries is the file in rpc-schema/, byte for byte")
    func embedded() throws {
        #expect(ProtocolDocument.text == (try RepositoryFiles.text("rpc-schema/openrpc.json")))
    }

    @Test("every method has an example, and every example matches the method's own params and result")
    func examples() throws {
        let document = try depotDocument()
        for method in document.methods {
            #expect(!method.examples.isEmpty, "\(method.name) has no example")
            for example in method.examples {
                #expect(method.validateParams(example.params) == [], "\(method.name), example \(example.name): params")
                if method.isNotification {
                    #expect(example.result == nil, "\(method.name) is a notification; its example has a result")
                } else {
                    let result = try #require(example.result, "\(method.name), example \(example.name) has no result value")
                    #expect(method.validateResult(result) == [], "\(method.name), example \(example.name): result")
                }
            }
        }
    }

    @Test(
        "every error a method lists has a Depot or JSON-RPC code, and its data is a State when it carries one (a pointer for a bad pipeline, a WriteFailure for a write)"
    )
    func errors() throws {
        let document = try depotDocument()
        let codes = Set([-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009, -32010] + OpenRPCError.jsonRPCCodes)
        for method in document.methods {
            for error in method.errors {
                #expect(codes.contains(error.code), "\(method.name) lists error \(error.code)")
            }
        }
        #expect(try document.required("load").errors.map(\.code) == [-32001, -32005, -32004])
        #expect(try document.required("remove").errors.map(\.code) == [-32002, -32010, -32003, -32008, -32007, -32005, -32004])
        for method in ["put", "patch", "apply"] {
            #expect(
                try document.required(method).errors.map(\.code) == [-32002, -32010, -32003, -32008, -32009, -32602, -32001, -32007, -32005, -32004])
        }
        #expect(try document.required("remove").errors.dropLast(2).allSatisfy { $0.dataSchema != nil })
        #expect(try document.required("get").errors.map(\.code) == [-32003, -32602, -32003, -32005, -32004])
        for method in document.methods where !method.isNotification {
            #expect(method.errors.contains { $0.code == -32005 }, "\(method.name) lists forbidden: every call is checked")
            #expect(method.errors.contains { $0.code == -32004 }, "\(method.name) lists limitExceeded: its answer may be left out of a batch")
        }
        #expect(try document.required("get").errors.first?.dataSchema == nil)
        for method in ["subscribe", "state", "get"] {
            let invalidPipeline = try #require(try document.required(method).errors.first { $0.code == -32602 })
            #expect(invalidPipeline.dataSchema?.validate("/pipeline/1/where/field") == [])
            #expect(invalidPipeline.dataSchema?.validate("/mode") != [])
        }
    }

    // MARK: What the checks catch

    static let loaded =
        #"{"seq":2,"epoch":"e1","status":"success","origin":"cache","fetchedAt":"2026-11-21T20:41:49.123Z","stale":true,"pending":0,"items":[{"id":1}]}"#

    struct Wrong: Sendable, CustomTestStringConvertible {
        let method: String
        let message: String
        let expected: [String]
        var testDescription: String { "\(method): \(message)" }
    }

    static let wrongResponses: [Wrong] = [
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":{"seq":-1,"epoch":"e1","status":"idle"}}"#,
            expected: ["/result/seq: must be at least 0, found -1"]),
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"success"}}"#,
            expected: [
                #"/result: missing required member "origin" (status is "success")"#,
                #"/result: missing required member "fetchedAt" (status is "success")"#,
                #"/result: missing required member "stale" (status is "success")"#,
                #"/result: missing required member "pending" (status is "success")"#,
                #"/result: matches none of the "anyOf" schemas: anyOf/0: missing required member "items"; anyOf/1: missing required member "count" (status is "success")"#,
            ]),
        Wrong(
            method: "state",
            message:
                #"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"success","origin":"disk","fetchedAt":"2026-11-21T20:41:49.123Z","stale":"no","items":[]}}"#,
            expected: [
                #"/result/origin: is not one of "source", "cache", "memory" (found "disk")"#,
                #"/result/stale: must be a boolean, found string "no""#,
                #"/result: missing required member "pending" (status is "success")"#,
            ]),
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"idle","items":[]}}"#,
            expected: [
                #"/result: must not have member "items" (status is "idle")"#
            ]),
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"idle","origin":"cache"}}"#,
            expected: [
                #"/result: must not have member "origin" (status is "idle")"#
            ]),
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"idle","etag":"x"}}"#,
            expected: [
                #"/result: must not have member "etag" (it may have "seq", "epoch", "status", "origin", "fetchedAt", "stale", "staleReason", "revision", "pending", "count", "items" and "error")"#
            ]),
        Wrong(method: "state", message: #"{"jsonrpc":"1.0","id":1,"result":\#(loaded)}"#, expected: [#"/jsonrpc: must be "2.0", found "1.0""#]),
        Wrong(method: "state", message: #"{"jsonrpc":"2.0","result":\#(loaded)}"#, expected: [#"missing required member "id""#]),
        Wrong(
            method: "state", message: #"{"jsonrpc":"2.0","id":1,"result":\#(loaded),"extra":1}"#,
            expected: [
                #"must not have member "extra": a JSON-RPC response (jsonrpc, id, and result or error) has no other"#
            ]),
        Wrong(method: "get", message: #"{"jsonrpc":"2.0","id":1,"result":[1]}"#, expected: ["/result: must be an object, found an array"]),
        Wrong(
            method: "load", message: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no"}}"#,
            expected: [
                #"/error: missing required member "data" (error -32001 of load describes its data)"#
            ]),
        Wrong(
            method: "load", message: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"no"}}"#,
            expected: [
                "/error/code: must be one of load's errors (-32001, -32005, -32004) or JSON-RPC's own (-32700, -32600, -32601, -32602, -32603), found -32002"
            ]),
        Wrong(
            method: "subscribe", message: #"{"jsonrpc":"2.0","id":1,"result":{"subscription":7,"epoch":"e1","seq":0,"resumed":false}}"#,
            expected: ["/result/subscription: must be a string, found number 7"]),
        Wrong(
            method: "nosuch", message: #"{"jsonrpc":"2.0","id":1,"result":true}"#,
            expected: [
                #"/result: is not expected: "nosuch" is not a method of the document (it has state, get, load, remove, put, patch, apply, wipe, subscribe, unsubscribe, pipelines.put, pipelines.get, pipelines.list, pipelines.delete, whoami, stats, rpc.discover), so the answer must be an error"#
            ]),
    ]

    @Test("a response that breaks the document is caught, and said where", arguments: wrongResponses)
    func wrongResponse(_ wrong: Wrong) throws {
        let document = try depotDocument()
        let violations = document.validateResponse(try JSONParser.parse(wrong.message), toMethod: wrong.method)
        #expect(violations.map(\.description) == wrong.expected)
    }

    @Test("answers as depotd gives them pass, errors with their data included")
    func rightResponses() throws {
        let document = try depotDocument()
        let answers: [(String, String)] = [
            ("state", #"{"jsonrpc":"2.0","id":"a","result":\#(Self.loaded)}"#),
            (
                "load",
                #"{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"x","data":{"seq":3,"epoch":"e1","status":"failure","error":{"code":-32001,"message":"x"}}}}"#
            ),
            ("get", #"{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Invalid params"}}"#),
            ("get", #"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params","data":"/pipeline/0/op"}}"#),
            ("nosuch", #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#),
            ("unsubscribe", #"{"jsonrpc":"2.0","id":1.5,"result":false}"#),
        ]
        for (method, message) in answers {
            #expect(document.validateResponse(try JSONParser.parse(message), toMethod: method) == [], "\(method): \(message)")
        }
    }

    @Test("a notification that breaks the document is caught")
    func wrongNotifications() throws {
        let document = try depotDocument()
        let cases: [(String, [String])] = [
            (#"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":1,"epoch":"e1","status":"loading"}}}"#, []),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","skipped":2,"state":{"seq":1,"epoch":"e1","status":"loading"}}}"#,
                []
            ),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","skipped":0,"state":{"seq":1,"epoch":"e1","status":"loading"}}}"#,
                [
                    "/params/skipped: must be at least 1, found 0"
                ]
            ),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"state":{"seq":1,"epoch":"e1","status":"loading"}}}"#,
                [
                    #"/params: missing required param "subscription""#
                ]
            ),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":1,"epoch":"e1","status":"loading"},"extra":true}}"#,
                [
                    "/params/extra: is not a param of stateChanged (it takes subscription, skipped, resync, pipelineChanged, state, delta)"
                ]
            ),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":4,"epoch":"e1","status":"success","origin":"memory","fetchedAt":"2026-11-21T20:41:49.123Z","stale":false,"pending":1,"count":1},"delta":{"base":3,"idField":"id","removed":["2"],"changed":[],"added":[]}}}"#,
                []
            ),
            (
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":1,"epoch":"e1","status":"loading"},"delta":{"base":0,"removed":[],"changed":[],"added":[{"index":-1,"item":{}}]}}}"#,
                [
                    #"/params/delta: missing required member "idField""#,
                    "/params/delta/added/0/index: must be at least 0, found -1",
                ]
            ),
            (
                #"{"jsonrpc":"2.0","method":"heartbeat","params":{"subscription":"s1","epoch":"e1","seq":4}}"#,
                []
            ),
            (
                #"{"jsonrpc":"2.0","method":"heartbeat","params":{"subscription":"s1","seq":4}}"#,
                [
                    #"/params: missing required param "epoch""#
                ]
            ),
            (
                #"{"jsonrpc":"2.0","id":1,"method":"stateChanged","params":{"subscription":"s1","state":{"seq":1,"epoch":"e1","status":"loading"}}}"#,
                [
                    #"must not have member "id": a notification has none"#
                ]
            ),
            (
                #"{"jsonrpc":"2.0","method":"state"}"#,
                [
                    #"/method: must be a notification the server sends, found "state", a method clients call; the document's notifications are stateChanged, heartbeat, subscriptionEnded"#
                ]
            ),
        ]
        for (message, expected) in cases {
            #expect(document.validateNotification(try JSONParser.parse(message)).map(\.description) == expected, "\(message)")
        }
    }

    @Test("params are checked by name: unknown names, missing required ones, and wrong types are each named")
    func params() throws {
        let remove = try depotDocument().required("remove")
        #expect(remove.validateParams(["id": "25", "optimistic": true]) == [])
        #expect(remove.validateParams(["id": 25]) == [])
        #expect(remove.validateParams(["optimistic": true]).map(\.description) == [#"missing required param "id""#])
        #expect(
            remove.validateParams(["id": "25", "optimisitc": true]).map(\.description) == [
                "/optimisitc: is not a param of remove (it takes id, optimistic, ifMatch, items)"
            ])
        #expect(
            remove.validateParams(["id": "25", "optimistic": "yes"]).map(\.description) == [#"/optimistic: must be a boolean, found string "yes""#])
        #expect(
            remove.validateParams(member: .array(["25"])).map(\.description) == [
                #"must be an object (remove takes its params by name), found an array"#
            ])
    }

    @Test("rpc-schema/openrpc.json is valid against the OpenRPC meta-schema (checked offline by Python's jsonschema)")
    func metaSchema() async throws {
        let python = try #require(RepositoryFiles.executable(named: "python3"), "python3 is needed: run scripts/install-dependencies")
        let validate = RepositoryFiles.path("rpc-schema/meta-schema/validate.py")
        let environment = ["PATH": "/usr/bin:/bin"]
        let result = try await CommandResult.run(python, [validate, RepositoryFiles.path("rpc-schema/openrpc.json")], environment: environment)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.isEmpty)

        // And the check can fail: a document whose error has a member OpenRPC does not allow.
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var broken = try #require(ProtocolDocument.value.objectValue)
        broken["openrpc"] = "0.9"
        let path = directory.write("broken.json", JSONValue.object(broken).jsonText)
        let failed = try await CommandResult.run(python, [validate, path], environment: environment)
        #expect(failed.status == 1, "\(failed.standardOutput)\(failed.standardError)")
        #expect(failed.standardOutput.contains("openrpc"))
    }
}
