import DepotJSON
import DepotSchema
import Foundation
import Testing

/// Runs `body` on a thread with the stack Linux gives threads by default (8 MB), so that these tests prove the
/// deepest evaluations fit in it, whatever thread the test runner would have used.
func onDefaultSizedStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: body())
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

@Suite("Recursion stays bounded, whatever the instance or the schema")
struct DepthTests {
    /// `[[[…]]]`, `levels` arrays deep, built in code (the parser would stop at 512).
    static func nestedArrays(_ levels: Int) -> JSONValue {
        var value: JSONValue = []
        for _ in 1..<levels { value = .array([value]) }
        return value
    }

    /// `{"definitions": {"d0": …, "d1": …, …}, "$ref": "#/definitions/d0"}`: `links` schemas, each made by `link`
    /// from the `$ref` to the next one; the last is `{"type": "string"}`.
    static func chain(_ links: Int, _ link: (JSONValue) -> JSONValue) -> JSONSchema {
        var definitions = JSONObject()
        for index in 0..<links {
            definitions.append(key: "d\(index)", value: link(["$ref": .string("#/definitions/d\(index + 1)")]))
        }
        definitions.append(key: "d\(links)", value: ["type": "string"])
        return JSONSchema(["definitions": .object(definitions), "$ref": "#/definitions/d0"])
    }

    @Test("the deepest document the parser accepts is checked all the way down")
    func parserLimit() async throws {
        let depth = JSONParser.defaultMaxDepth
        let valid = try JSONParser.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        let invalid = try JSONParser.parse(String(repeating: "[", count: depth - 1) + "1" + String(repeating: "]", count: depth - 1))
        let schema = JSONSchema(
            json(##"{"type": "array", "items": {"$ref": "#"}, "allOf": [{"if": {"minItems": 1}, "then": {"not": {"maxItems": 0}}}]}"##))
        let (violations, isValid, wrong) = await onDefaultSizedStack {
            (schema.validate(valid), schema.isValid(valid), schema.validate(invalid))
        }
        #expect(violations.isEmpty)
        #expect(isValid)
        #expect(wrong.ignoringKeywords == [at(String(repeating: "/0", count: depth - 1), "must be an array, found number 1")])
    }

    @Test("an instance deeper than 512 levels is reported where it goes too deep")
    func deeperThanTheParserAllows() async {
        let schema = JSONSchema(json(##"{"items": {"$ref": "#"}}"##))
        let violations = await onDefaultSizedStack { schema.validate(Self.nestedArrays(600)) }
        #expect(violations.ignoringKeywords == [at(String(repeating: "/0", count: 513), "cannot be checked: nested deeper than 512 levels")])
    }

    @Test("a chain of $refs longer than the nesting limit is reported, not followed")
    func longReferenceChain() async {
        let schema = Self.chain(2_100) { $0 }
        #expect(schema.unsupportedKeywords.isEmpty)
        let violations = await onDefaultSizedStack { schema.validate(1) }
        #expect(violations.ignoringKeywords == [at("", "cannot be checked: schemas nest deeper than 2048 levels here")])
    }

    @Test("the costliest nesting per level (not, not, allOf, $ref) stays within the limit and the stack")
    func compositeChain() async {
        let schema = Self.chain(1_000) { ["not": ["not": ["allOf": [$0]]]] }
        let (violations, isValid) = await onDefaultSizedStack { (schema.validate(1), schema.isValid(1)) }
        #expect(violations.ignoringKeywords == [at("", "cannot be checked: schemas nest deeper than 2048 levels here")])
        #expect(!isValid)
    }

    @Test("schemas nested deeper than 512 levels are not compiled")
    func deepSchema() async {
        var schema: JSONValue = ["type": "integer"]
        for _ in 0..<600 { schema = ["not": schema] }
        let (issues, violations) = await onDefaultSizedStack { [schema] in
            (JSONSchema.unsupportedKeywords(in: schema).map(\.description), JSONSchema(schema).validate(1))
        }
        #expect(issues == ["#" + String(repeating: "/not", count: 512) + ": nests schemas deeper than 512 levels"])
        #expect(violations.count == 1)
    }
}
