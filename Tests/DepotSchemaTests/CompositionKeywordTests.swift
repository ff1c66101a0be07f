import DepotSchema
import Testing

@Suite("Keywords: allOf, anyOf, oneOf, not, if/then/else")
struct CompositionKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"allOf": [{"type": "integer"}, {"minimum": 3}]}"#, "3"),
        SchemaCase(#"{"allOf": [{"type": "integer"}, {"minimum": 3}]}"#, "2", [at("", "must be at least 3, found 2")]),
        SchemaCase(#"{"allOf": [{"type": "integer"}, {"minimum": 3}]}"#, #""x""#, [at("", #"must be an integer, found string "x""#)]),
        SchemaCase(
            #"{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}"#, "{}",
            [
                at("", #"missing required member "a""#),
                at("", #"missing required member "b""#),
            ]),
    ])
    func allOf(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#, "1"),
        SchemaCase(#"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#, #""1""#),
        // Alternatives that only want other types merge into one message.
        SchemaCase(#"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#, "true", [at("", "must be a string or an integer, found boolean true")]),
        SchemaCase(
            #"{"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}"#, "1.5",
            [at("", "must be a string, null or an integer, found number 1.5")]),
        // Only one alternative has the instance's type: its own violations, at their own paths.
        SchemaCase(
            #"{"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}"#, #""""#,
            [at("", "must be at least 1 character long, found 0 characters")]),
        SchemaCase(
            #"{"anyOf": [{"type": "object", "properties": {"id": {"type": "integer"}}}, {"type": "string"}]}"#, #"{"id": "x"}"#,
            [at("/id", #"must be an integer, found string "x""#)]),
        // Several alternatives could have matched: each one's violations, in one message.
        SchemaCase(
            #"{"anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"], "properties": {"b": {"type": "string"}}}]}"#,
            #"{"b": 1}"#,
            [at("", #"matches none of the "anyOf" schemas: anyOf/0: missing required member "a"; anyOf/1: /b: must be a string, found number 1"#)]
        ),
    ])
    func anyOf(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}"#, #""25""#),
        SchemaCase(#"{"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}"#, "25"),
        SchemaCase(
            #"{"oneOf": [{"type": "string", "minLength": 1}, {"type": "integer"}]}"#, "true",
            [at("", "must be a string or an integer, found boolean true")]),
        SchemaCase(#"{"oneOf": [{"type": "number"}, {"type": "integer"}]}"#, "1.5"),
        SchemaCase(
            #"{"oneOf": [{"type": "number"}, {"type": "integer"}]}"#, "1",
            [
                at("", #"must match exactly one of the "oneOf" schemas, but matches oneOf/0 and oneOf/1"#)
            ]),
        SchemaCase(
            #"{"oneOf": [{"minimum": 0}, {"maximum": 10}, {"type": "integer"}]}"#, "5",
            [
                at("", #"must match exactly one of the "oneOf" schemas, but matches oneOf/0, oneOf/1 and oneOf/2"#)
            ]),
        SchemaCase(
            #"{"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}"#, "{}",
            [at("", #"matches none of the "oneOf" schemas: oneOf/0: missing required member "a"; oneOf/1: missing required member "b""#)]
        ),
    ])
    func oneOf(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"not": {"required": ["error"]}}"#, "{}"),
        SchemaCase(#"{"not": {"required": ["error"]}}"#, #"{"error": 1}"#, [at("", #"must not have member "error""#)]),
        SchemaCase(#"{"not": {"required": ["a", "b"]}}"#, #"{"a": 1}"#),
        SchemaCase(#"{"not": {"required": ["a", "b"]}}"#, #"{"a": 1, "b": 2}"#, [at("", #"must not have both members "a" and "b""#)]),
        SchemaCase(
            #"{"not": {"required": ["a", "b", "c"]}}"#, #"{"a": 1, "b": 2, "c": 3}"#, [at("", #"must not have all of the members "a", "b" and "c""#)]),
        SchemaCase(
            #"{"not": {"anyOf": [{"required": ["items"]}, {"required": ["error"]}]}}"#, #"{"error": {}}"#, [at("", #"must not have member "error""#)]),
        SchemaCase(#"{"not": {"const": "x"}}"#, #""x""#, [at("", #"must not be "x""#)]),
        SchemaCase(#"{"not": {"enum": [1, 2]}}"#, "2.0", [at("", "must not be one of 1, 2 (found 2.0)")]),
        SchemaCase(#"{"not": {"type": ["integer", "string"]}}"#, #""s""#, [at("", "must not be a string")]),
        // Anything else: which schema it must not match.
        SchemaCase(#"{"not": {"minimum": 3}}"#, "5", [at("", "must not match the schema at #/not")]),
        SchemaCase(#"{"not": true}"#, "null", [at("", "must not match the schema at #/not")]),
        SchemaCase(#"{"not": {"required": ["a"]}}"#, #""not an object""#, [at("", "must not match the schema at #/not")]),
        SchemaCase(#"{"not": false}"#, "null"),
    ])
    func not(_ row: SchemaCase) {
        row.check()
    }

    static let statusRule =
        #"{"if": {"properties": {"status": {"const": "success"}}}, "then": {"required": ["items"]}, "else": {"not": {"required": ["items"]}}}"#

    @Test(arguments: [
        SchemaCase(statusRule, #"{"status": "success", "items": []}"#),
        SchemaCase(statusRule, #"{"status": "idle"}"#),
        // Violations of then/else say what the if looked at.
        SchemaCase(statusRule, #"{"status": "success"}"#, [at("", #"missing required member "items" (status is "success")"#)]),
        SchemaCase(statusRule, #"{"status": "idle", "items": []}"#, [at("", #"must not have member "items" (status is "idle")"#)]),
        SchemaCase(statusRule, #"{"status": 3, "items": []}"#, [at("", #"must not have member "items" (status is 3)"#)]),
        SchemaCase(statusRule, "{}", [at("", #"missing required member "items" (status is absent)"#)]),
        // Otherwise they say which if schema matched or did not.
        SchemaCase(#"{"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}"#, "1"),
        SchemaCase(#"{"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}"#, #""x""#),
        SchemaCase(
            #"{"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}"#, "-1",
            [
                at("", #"must be at least 0, found -1 (as the "if" schema at #/if matches)"#)
            ]),
        SchemaCase(
            #"{"if": {"type": "integer"}, "then": {"minimum": 0}, "else": {"type": "string"}}"#, "true",
            [
                at("", #"must be a string, found boolean true (as the "if" schema at #/if does not match)"#)
            ]),
        SchemaCase(
            #"{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"properties": {"size": {"type": "integer"}}}}"#,
            #"{"kind": "a", "size": "big"}"#,
            [
                at("/size", #"must be an integer, found string "big" (kind is "a")"#)
            ]),
        // then and else without if do nothing; if alone does nothing.
        SchemaCase(#"{"then": false, "else": false}"#, "1"),
        SchemaCase(#"{"if": false}"#, "1"),
    ])
    func conditional(_ row: SchemaCase) {
        row.check()
    }
}
