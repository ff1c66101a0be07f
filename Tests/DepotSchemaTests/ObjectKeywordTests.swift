import DepotSchema
import Testing

@Suite("Keywords: required, properties, additionalProperties, minProperties, maxProperties")
struct ObjectKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"required": ["seq", "status"]}"#, #"{"seq": 1, "status": "idle"}"#),
        SchemaCase(
            #"{"required": ["seq", "status"]}"#, "{}",
            [
                at("", #"missing required member "seq""#),
                at("", #"missing required member "status""#),
            ]),
        SchemaCase(#"{"required": ["seq"]}"#, #"{"seq": null}"#),
        SchemaCase(#"{"required": ["seq"]}"#, "[]"),
        SchemaCase(#"{"required": ["a\"b"]}"#, "{}", [at("", #"missing required member "a\"b""#)]),
    ])
    func required(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"properties": {"a": {"type": "string"}}}"#, #"{"a": "x", "b": 1}"#),
        SchemaCase(#"{"properties": {"a": {"type": "string"}}}"#, "{}"),
        // Member names are escaped in paths: "/" as ~1, "~" as ~0.
        SchemaCase(
            #"{"properties": {"a": {"type": "string"}, "b/c": {"type": "integer"}, "d~e": {"type": "null"}}}"#, #"{"a": 1, "b/c": "x", "d~e": 0}"#,
            [
                at("/a", "must be a string, found number 1"),
                at("/b~1c", #"must be an integer, found string "x""#),
                at("/d~0e", "must be null, found number 0"),
            ]),
        SchemaCase(#"{"properties": {"": {"type": "string"}}}"#, #"{"": 1}"#, [at("/", "must be a string, found number 1")]),
        // A repeated member: the last one counts, as for every lookup.
        SchemaCase(#"{"properties": {"a": {"type": "integer"}}}"#, #"{"a": "x", "a": 1}"#),
        SchemaCase(#"{"properties": {"a": {"type": "integer"}}}"#, #"{"a": 1, "a": "x"}"#, [at("/a", #"must be an integer, found string "x""#)]),
    ])
    func properties(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"properties": {"subscription": {}}, "additionalProperties": false}"#, #"{"subscription": "s1"}"#),
        SchemaCase(
            #"{"properties": {"subscription": {}}, "additionalProperties": false}"#, #"{"subscription": "s1", "x": 1}"#,
            [
                at("", #"must not have member "x" (it may have "subscription")"#)
            ]),
        SchemaCase(
            #"{"properties": {"a": {}, "b": {}}, "additionalProperties": false}"#, #"{"c": 1, "a": 1, "d": 2}"#,
            [
                at("", #"must not have member "c" (it may have "a" and "b")"#),
                at("", #"must not have member "d" (it may have "a" and "b")"#),
            ]),
        SchemaCase(#"{"additionalProperties": false}"#, #"{"a": 1}"#, [at("", #"must not have member "a" (it may have no members)"#)]),
        SchemaCase(#"{"additionalProperties": false}"#, "{}"),
        SchemaCase(
            #"{"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}"#, #"{"a": "x", "b": "y", "c": 3}"#,
            [
                at("/b", #"must be an integer, found string "y""#)
            ]),
        SchemaCase(#"{"additionalProperties": true}"#, #"{"a": 1}"#),
    ])
    func additionalProperties(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"minProperties": 1}"#, #"{"a": 1}"#),
        SchemaCase(#"{"minProperties": 1}"#, "{}", [at("", "must have at least 1 member, found 0")]),
        SchemaCase(#"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#, [at("", "must have at most 1 member, found 2")]),
        SchemaCase(#"{"maxProperties": 1}"#, #"{"a": 1, "a": 2}"#),
        SchemaCase(#"{"maxProperties": 1}"#, "[1, 2]"),
    ])
    func memberCounts(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "patternProperties, and additionalProperties for the members neither names",
        arguments: [
            SchemaCase(##"{"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"##, ##"{"x-a": "1"}"##),
            SchemaCase(##"{"patternProperties": {"^x-": {"type": "string"}}}"##, ##"{"x-a": 1}"##, [at("/x-a", "must be a string, found number 1")]),
            SchemaCase(
                ##"{"properties": {"a": {}}, "patternProperties": {"^x-": {}}, "additionalProperties": false}"##, ##"{"a": 1, "b": 2}"##,
                [
                    at("", ##"must not have member "b" (it may have "a")"##)
                ]),
            SchemaCase(
                ##"{"properties": {"x-a": {"minimum": 5}}, "patternProperties": {"a$": {"maximum": 3}}}"##, ##"{"x-a": 4}"##,
                [
                    at("/x-a", "must be at least 5, found 4"), at("/x-a", "must be at most 3, found 4"),
                ]),
        ])
    func patternProperties(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "propertyNames: every member name, as a string",
        arguments: [
            SchemaCase(##"{"propertyNames": {"maxLength": 3}}"##, ##"{"abc": 1}"##),
            SchemaCase(
                ##"{"propertyNames": {"maxLength": 3}}"##, ##"{"abcd": 1}"##,
                [
                    at("", ##"has a member name "abcd" that must be at most 3 characters long, found 4 characters"##)
                ]),
            SchemaCase(##"{"propertyNames": false}"##, "{}"),
        ])
    func propertyNames(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "dependencies: members a member needs, or a schema the object must then match",
        arguments: [
            SchemaCase(##"{"dependencies": {"bar": ["foo"]}}"##, ##"{"bar": 1, "foo": 2}"##),
            SchemaCase(##"{"dependencies": {"bar": ["foo"]}}"##, ##"{"bar": 1}"##, [at("", ##"has member "bar", so it must also have "foo""##)]),
            SchemaCase(##"{"dependencies": {"bar": ["foo"]}}"##, ##"{"foo": 1}"##),
            SchemaCase(
                ##"{"dependencies": {"bar": {"required": ["baz"]}}}"##, ##"{"bar": 1}"##,
                [
                    at("", ##"missing required member "baz" (as it has member "bar")"##)
                ]),
        ])
    func dependencies(_ row: SchemaCase) {
        row.check()
    }
}
