import DepotJSON
import DepotOperators
import DepotPipeline
import DepotSchema
import DepotTestSupport
import DepotWire
import Testing

/// rpc-schema/'s JSON Schema for pipelines and depotd's decoder agree: what one accepts the other does, and
/// every way to write an operator or a predicate is described.
@Suite("rpc-schema: the Pipeline schema and the decoder agree")
struct PipelineSchemaTests {
    static let valid = [
        "[]",
        #"[{"op":"statuses","in":["success","failure"]}]"#,
        #"[{"op":"filter","where":{"field":"/type","eq":"fire"}}]"#,
        #"[{"op":"filter","where":{"all":[{"field":"/a","ne":null},{"any":[]},{"not":{"field":"/b~1c","exists":false}}]}}]"#,
        #"[{"op":"filter","where":{"field":"/n","lt":1e2}},{"op":"filter","where":{"field":"/s","ge":"m"}}]"#,
        #"[{"op":"filter","where":{"field":"/t","in":[1,"x",null]}},{"op":"filter","where":{"field":"/t","contains":[1]}}]"#,
        #"[{"op":"filter","where":{"field":"/t","prefix":"ab"}},{"op":"filter","where":{"field":"","exists":true}}]"#,
        #"[{"op":"select","fields":["/name","/stats/hp"]},{"op":"sort","by":"/name"},{"op":"sort","by":"/n","order":"desc"}]"#,
        #"[{"op":"limit","count":0},{"op":"removeDuplicates"},{"op":"throttle","seconds":0.5}]"#,
        #"[{"op":"debounce","seconds":86400},{"op":"delay","seconds":0.001}]"#,
    ]

    static let invalid = [
        #"{"op":"limit","count":1}"#,
        #"[{"op":"map"}]"#,
        #"[{"count":1}]"#,
        #"[{"op":"limit","count":-1}]"#,
        #"[{"op":"limit","count":1.5}]"#,
        #"[{"op":"limit","count":1,"extra":true}]"#,
        #"[{"op":"statuses","in":[]}]"#,
        #"[{"op":"statuses","in":["ok"]}]"#,
        #"[{"op":"select","fields":[]}]"#,
        #"[{"op":"select","fields":[""]}]"#,
        #"[{"op":"select","fields":["name"]}]"#,
        #"[{"op":"sort","by":"/a~2"}]"#,
        #"[{"op":"sort","by":"/a","order":"up"}]"#,
        #"[{"op":"throttle","seconds":0}]"#,
        #"[{"op":"delay","seconds":86401}]"#,
        #"[{"op":"removeDuplicates","by":"/a"}]"#,
        #"[{"op":"filter","where":{"field":"/a"}}]"#,
        #"[{"op":"filter","where":{"field":"/a","eq":1,"ne":2}}]"#,
        #"[{"op":"filter","where":{"field":"/a","like":1}}]"#,
        #"[{"op":"filter","where":{"field":"/a","lt":true}}]"#,
        #"[{"op":"filter","where":{"field":"/a","in":1}}]"#,
        #"[{"op":"filter","where":{"field":"/a","prefix":1}}]"#,
        #"[{"op":"filter","where":{"field":"/a","exists":1}}]"#,
        #"[{"op":"filter","where":{"all":{}}}]"#,
        #"[{"op":"filter","where":{"all":[],"any":[]}}]"#,
        #"[{"op":"filter","where":{"not":[]}}]"#,
    ]

    /// The violations of `subscribe {"pipeline": …}` against the document.
    static func violations(_ text: String) throws -> [SchemaViolation] {
        let method = try #require(ProtocolLedger.document.method(named: "subscribe"))
        return method.validateParams(["pipeline": try JSONParser.parse(Array(text.utf8))])
    }

    @Test("a pipeline the decoder accepts, the schema accepts", arguments: valid)
    func accepted(_ text: String) throws {
        #expect(throws: Never.self) { try Pipeline(decoding: try JSONParser.parse(Array(text.utf8))) }
        #expect(try Self.violations(text) == [])
    }

    @Test("a pipeline the decoder refuses, the schema refuses", arguments: invalid)
    func refused(_ text: String) throws {
        #expect(throws: PipelineError.self) { try Pipeline(decoding: try JSONParser.parse(Array(text.utf8))) }
        #expect(try !Self.violations(text).isEmpty)
    }

    @Test("every operator the decoder knows has a branch in the schema")
    func everyOperator() throws {
        let schemas = try #require(ProtocolLedger.document.json["components"]?["schemas"]?["Operator"]?["oneOf"]?.arrayValue)
        let names = schemas.compactMap { $0["properties"]?["op"]?["const"]?.stringValue }
        #expect(names == PipelineOperator.names)
    }
}
