package import DepotJSON

/// A JSON Schema (the draft-07 keywords, as OpenRPC documents use them), compiled once and resolved against
/// the document it lives in, so that `"$ref": "#/components/schemas/State"` works.
///
/// It checks `type`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`,
/// `maxLength`, `items` (one schema or a list), `additionalItems`, `minItems`, `maxItems`, `uniqueItems`,
/// `required`, `properties`, `additionalProperties`, `minProperties`, `maxProperties`, `allOf`, `anyOf`,
/// `oneOf`, `not`, `if`/`then`/`else` and `$ref`, and ignores annotations (`title`, `description`, `default`,
/// `examples`, `$comment`, …). Where it departs from draft-07, on purpose:
/// - `integer` is a number whose literal has no fraction and no exponent: `1.0` is not an integer here.
/// - Lengths count Unicode scalars (code points), which is what draft-07's "characters" are.
/// - Numbers compare exactly as decimals (`DecimalNumber`), never through `Double`.
/// A keyword it does not implement is never passed over quietly: `unsupportedKeywords` lists it, and
/// `validate` reports an instance it would apply to as one it cannot check.
package struct JSONSchema: Sendable {
    /// The schema as written.
    package let json: JSONValue
    /// Where the schema is in its document (`#/components/schemas/State`), or "" when that is not known.
    package let location: String
    let compiled: CompiledSchemas

    /// `schema`, whose `$ref`s lead into `root` (the whole document) or into `documents` (other documents, by
    /// URI; nothing is ever fetched). `location` is where the schema is in `root`, as `#/…`; give it when known,
    /// so that messages about the schema say where it is and relative references resolve from there.
    package init(
        _ schema: JSONValue,
        root: JSONValue,
        location: String? = nil,
        documents: [String: JSONValue] = [:],
        integers: IntegerRule = .literal
    ) {
        self.json = schema
        self.location = location ?? ""
        let resources = SchemaResources(root: root, others: documents)
        let here = self.location.hasPrefix("#") ? JSONPointer(parsing: self.location.dropFirst()) : nil
        let base = here.map { resources.base(at: SchemaResources.Location(document: "", pointer: $0)) } ?? URIReference(parsing: "")
        self.compiled = SchemaCompiler.compile(schema, resources: resources, location: self.location, base: base, integers: integers)
    }

    /// A schema that is its own document: its `$ref`s point into itself, or into `documents` (by URI).
    package init(_ schema: JSONValue, documents: [String: JSONValue] = [:], integers: IntegerRule = .literal) {
        self.init(schema, root: schema, location: "#", documents: documents, integers: integers)
    }

    /// Every way `instance` fails the schema, in the order the schema's keywords and the instance's members
    /// come; empty when it is valid.
    package func validate(_ instance: JSONValue) -> [SchemaViolation] {
        SchemaEvaluator(schemas: compiled).violations(of: instance)
    }

    /// Whether `instance` is valid; stops at the first violation.
    package func isValid(_ instance: JSONValue) -> Bool {
        let evaluator = SchemaEvaluator(schemas: compiled)
        return evaluator.matches(compiled.entry, instance, .start)
    }

    /// The keywords of this schema, and of every schema its `$ref`s lead to, that are not applied as written.
    package var unsupportedKeywords: [UnsupportedKeyword] {
        compiled.allNodes.flatMap(\.issues)
    }

    /// The keywords in `schema` (a schema on its own, `$ref`s into itself) that are not applied as written.
    package static func unsupportedKeywords(in schema: JSONValue) -> [UnsupportedKeyword] {
        JSONSchema(schema).unsupportedKeywords
    }
}
