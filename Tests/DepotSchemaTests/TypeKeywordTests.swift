import DepotSchema
import Testing

@Suite("Keywords: type")
struct TypeKeywordTests {
    static let longText = String(repeating: "a", count: 50)

    @Test(arguments: [
        SchemaCase(#"{"type": "integer"}"#, "1"),
        SchemaCase(#"{"type": "integer"}"#, "-0"),
        SchemaCase(#"{"type": "integer"}"#, "12345678901234567890123"),
        // Stricter than draft-07, on purpose: an integer is written without fraction or exponent.
        SchemaCase(#"{"type": "integer"}"#, "1.0", [at("", "must be an integer, found number 1.0")]),
        SchemaCase(#"{"type": "integer"}"#, "1e2", [at("", "must be an integer, found number 1e2")]),
        SchemaCase(#"{"type": "integer"}"#, #""x""#, [at("", #"must be an integer, found string "x""#)]),
        SchemaCase(#"{"type": "number"}"#, "1"),
        SchemaCase(#"{"type": "number"}"#, "-1.5e-7"),
        SchemaCase(#"{"type": "number"}"#, #""1""#, [at("", #"must be a number, found string "1""#)]),
        SchemaCase(#"{"type": "string"}"#, #""""#),
        SchemaCase(#"{"type": "string"}"#, "null", [at("", "must be a string, found null")]),
        SchemaCase(#"{"type": "boolean"}"#, "false"),
        SchemaCase(#"{"type": "boolean"}"#, "0", [at("", "must be a boolean, found number 0")]),
        SchemaCase(#"{"type": "null"}"#, "null"),
        SchemaCase(#"{"type": "null"}"#, "false", [at("", "must be null, found boolean false")]),
        SchemaCase(#"{"type": "array"}"#, "[]"),
        SchemaCase(#"{"type": "array"}"#, "{}", [at("", "must be an array, found an object")]),
        SchemaCase(#"{"type": "object"}"#, "{}"),
        SchemaCase(#"{"type": "object"}"#, "[1]", [at("", "must be an object, found an array")]),
        SchemaCase(#"{"type": ["string", "null"]}"#, "null"),
        SchemaCase(#"{"type": ["string", "null"]}"#, "3", [at("", "must be a string or null, found number 3")]),
        SchemaCase(#"{"type": ["string", "integer", "null"]}"#, "true", [at("", "must be a string, an integer or null, found boolean true")]),
        SchemaCase(#"{"type": ["number", "integer"]}"#, "1.5"),
        // Long values are cut in messages.
        SchemaCase(#"{"type": "integer"}"#, "\"\(longText)\"", [at("", "must be an integer, found string \"\(String(repeating: "a", count: 38))…")]),
        // A wrong type silences the schema's other keywords: the instance is invalid either way.
        SchemaCase(#"{"type": "object", "required": ["a"], "not": {"required": ["b"]}}"#, #""x""#, [at("", #"must be an object, found string "x""#)]),
    ])
    func type(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "boolean schemas",
        arguments: [
            SchemaCase("true", #"{"anything": [1, 2]}"#),
            SchemaCase("false", "1", [at("", "is not allowed here (its schema is false)")]),
            SchemaCase("{}", "null"),
            SchemaCase(#"{"properties": {"a": false}}"#, #"{"b": 1}"#),
            SchemaCase(#"{"properties": {"a": false}}"#, #"{"a": 1}"#, [at("/a", "is not allowed here (its schema is false)")]),
        ])
    func booleanSchemas(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "annotations never fail an instance",
        arguments: [
            SchemaCase(
                #"{"title": "T", "description": "D", "default": 5, "examples": [1], "$comment": "c", "readOnly": true, "writeOnly": false, "$schema": "http://json-schema.org/draft-07/schema#"}"#,
                #""x""#),
            SchemaCase(#"{"type": "integer", "default": "not an integer", "examples": ["x"]}"#, "3"),
        ])
    func annotations(_ row: SchemaCase) {
        row.check()
    }
}
