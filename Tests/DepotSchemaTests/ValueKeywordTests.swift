import DepotSchema
import Testing

@Suite("Keywords: enum and const, with JSON equality")
struct ValueKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"enum": ["idle", "loading"]}"#, #""idle""#),
        SchemaCase(#"{"enum": ["idle", "loading"]}"#, #""done""#, [at("", #"is not one of "idle", "loading" (found "done")"#)]),
        SchemaCase(#"{"enum": ["idle", "loading"]}"#, "1", [at("", #"is not one of "idle", "loading" (found 1)"#)]),
        SchemaCase(#"{"enum": ["idle", "loading"]}"#, #"{"a": 1}"#, [at("", #"is not one of "idle", "loading" (found an object)"#)]),
        // Numbers compare by value.
        SchemaCase(#"{"enum": [1, "1", null]}"#, "1.0"),
        SchemaCase(#"{"enum": [1, "1", null]}"#, "1e0"),
        SchemaCase(#"{"enum": [1, "1", null]}"#, "10E-1"),
        SchemaCase(#"{"enum": [1, "1", null]}"#, #""1""#),
        SchemaCase(#"{"enum": [1, "1", null]}"#, "null"),
        SchemaCase(#"{"enum": [1, "1", null]}"#, "true", [at("", #"is not one of 1, "1", null (found true)"#)]),
        SchemaCase(#"{"enum": [[1, 2], {"a": null}]}"#, #"{"a": null}"#),
        SchemaCase(#"{"enum": [[1, 2], {"a": null}]}"#, "[2, 1]", [at("", #"is not one of [1,2], {"a":null} (found an array)"#)]),
        SchemaCase(#"{"enum": ["only"]}"#, #""x""#, [at("", #"must be "only", found "x""#)]),
        SchemaCase(#"{"enum": []}"#, "1", [at("", #"cannot be valid: the schema's "enum" is empty"#)]),
    ])
    func enumeration(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"const": "success"}"#, #""success""#),
        SchemaCase(#"{"const": "success"}"#, #""loading""#, [at("", #"must be "success", found "loading""#)]),
        SchemaCase(#"{"const": 1}"#, "1.0"),
        SchemaCase(#"{"const": 1}"#, "1.00e0"),
        SchemaCase(#"{"const": 1}"#, "100e-2"),
        SchemaCase(#"{"const": 1}"#, "-1", [at("", "must be 1, found -1")]),
        SchemaCase(#"{"const": 1}"#, #""1""#, [at("", #"must be 1, found "1""#)]),
        SchemaCase(#"{"const": 0}"#, "-0"),
        SchemaCase(#"{"const": 0}"#, "0.0e5"),
        SchemaCase(#"{"const": 12345678901234567890}"#, "12345678901234567891", [at("", "must be 12345678901234567890, found 12345678901234567891")]),
        SchemaCase(#"{"const": null}"#, "null"),
        SchemaCase(#"{"const": null}"#, "false", [at("", "must be null, found false")]),
        SchemaCase(#"{"const": [1, 2]}"#, "[1, 2.0]"),
        SchemaCase(#"{"const": [1, 2]}"#, "[1]", [at("", "must be [1,2], found an array")]),
        // Object members compare whatever their order; for a repeated name, the last one counts.
        SchemaCase(#"{"const": {"a": 1, "b": [1, 2]}}"#, #"{"b": [1, 2.0], "a": 1}"#),
        SchemaCase(#"{"const": {"a": 1, "b": [1, 2]}}"#, #"{"a": 1}"#, [at("", #"must be {"a":1,"b":[1,2]}, found an object"#)]),
        SchemaCase(#"{"const": {"a": 1, "b": [1, 2]}}"#, #"{"a": 1, "b": [2, 1]}"#, [at("", #"must be {"a":1,"b":[1,2]}, found an object"#)]),
        SchemaCase(#"{"const": {"a": 1}}"#, #"{"a": 2, "a": 1}"#),
        SchemaCase(#"{"const": {"a": 1}}"#, #"{"a": 1, "b": 1}"#, [at("", #"must be {"a":1}, found an object"#)]),
        // Strings compare code point for code point: a decomposed "é" is another string.
        SchemaCase(#"{"const": "\u00e9"}"#, #""\u00e9""#),
        SchemaCase(#"{"const": "\u00e9"}"#, #""e\u0301""#, [at("", "must be \"\u{e9}\", found \"e\u{301}\"")]),
    ])
    func constant(_ row: SchemaCase) {
        row.check()
    }
}
