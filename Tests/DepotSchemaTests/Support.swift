import DepotJSON
import DepotSchema
import DepotTestSupport
import Testing

/// Parses JSON text the test wrote; a typo in a test is a test failure, not a crash.
func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("test JSON does not parse: \(error)\n\(text)", sourceLocation: sourceLocation)
        return .null
    }
}

/// Shorthand for an expected violation; its keyword is not compared (`KeywordNameTests` holds those).
func at(_ path: String, _ message: String) -> SchemaViolation {
    SchemaViolation(path: path, message: message)
}

extension SchemaViolation {
    /// The violation without its keyword, to compare with `at(_:_:)`.
    var ignoringKeyword: SchemaViolation { SchemaViolation(path: path, message: message) }
}

extension [SchemaViolation] {
    /// The violations without their keywords, to compare with `at(_:_:)`.
    var ignoringKeywords: [SchemaViolation] { map(\.ignoringKeyword) }
}

/// One row of a keyword table: a schema (its own document), an instance, and exactly the violations expected.
struct SchemaCase: Sendable, CustomTestStringConvertible {
    let schema: String
    let instance: String
    let expected: [SchemaViolation]

    init(_ schema: String, _ instance: String, _ expected: [SchemaViolation] = []) {
        self.schema = schema
        self.instance = instance
        self.expected = expected
    }

    var testDescription: String { "\(instance) against \(schema)" }

    /// Checks `validate` gives exactly the expected violations, and `isValid` agrees with it.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        let schema = JSONSchema(json(self.schema))
        let instance = json(self.instance)
        let violations = schema.validate(instance)
        #expect(violations.ignoringKeywords == expected, sourceLocation: sourceLocation)
        #expect(schema.isValid(instance) == expected.isEmpty, "isValid disagrees with validate", sourceLocation: sourceLocation)
    }
}

/// rpc-schema/openrpc.json, read from this repository.
func depotDocument() throws -> OpenRPCDocument {
    let text = try RepositoryFiles.text("rpc-schema/openrpc.json")
    return try OpenRPCDocument(parsing: Array(text.utf8))
}

extension OpenRPCDocument {
    /// The method `name`, which the test knows is in the document.
    func required(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> OpenRPCMethod {
        try #require(method(named: name), "rpc-schema/openrpc.json has no method \(name)", sourceLocation: sourceLocation)
    }
}
