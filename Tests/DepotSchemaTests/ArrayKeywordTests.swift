import DepotSchema
import Testing

@Suite("Keywords: items, additionalItems, minItems, maxItems, uniqueItems")
struct ArrayKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"items": {"type": "integer"}}"#, "[1, 2]"),
        SchemaCase(
            #"{"items": {"type": "integer"}}"#, #"[1, "x", 2, true]"#,
            [
                at("/1", #"must be an integer, found string "x""#),
                at("/3", "must be an integer, found boolean true"),
            ]),
        SchemaCase(#"{"items": {"type": "integer"}}"#, #"{"0": "x"}"#),
        SchemaCase(#"{"items": {"items": {"type": "string"}}}"#, #"[[], ["a", 1]]"#, [at("/1/1", "must be a string, found number 1")]),
        SchemaCase(#"{"items": false}"#, "[]"),
        SchemaCase(#"{"items": false}"#, "[1]", [at("/0", "is not allowed here (its schema is false)")]),
    ])
    func items(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "items as a list (tuple form) and additionalItems",
        arguments: [
            SchemaCase(#"{"items": [{"type": "string"}, {"type": "integer"}]}"#, #"["a", 1, "more"]"#),
            SchemaCase(#"{"items": [{"type": "string"}, {"type": "integer"}]}"#, "[1]", [at("/0", "must be a string, found number 1")]),
            SchemaCase(#"{"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}"#, #"["a", 1]"#),
            SchemaCase(
                #"{"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}"#, #"["a", 1, null]"#,
                [
                    at("", #"must have at most 2 elements, found 3 ("additionalItems" is false)"#)
                ]),
            SchemaCase(#"{"items": [{}], "additionalItems": {"type": "string"}}"#, #"[1, "a", 2]"#, [at("/2", "must be a string, found number 2")]),
            // Without the list form, additionalItems does nothing.
            SchemaCase(#"{"items": {}, "additionalItems": false}"#, "[1, 2]"),
            SchemaCase(#"{"additionalItems": false}"#, "[1, 2]"),
        ])
    func tuples(_ row: SchemaCase) {
        row.check()
    }

    @Test(arguments: [
        SchemaCase(#"{"minItems": 1}"#, "[0]"),
        SchemaCase(#"{"minItems": 1}"#, "[]", [at("", "must have at least 1 element, found 0")]),
        SchemaCase(#"{"minItems": 2}"#, "[0]", [at("", "must have at least 2 elements, found 1")]),
        SchemaCase(#"{"maxItems": 2}"#, "[1, 2]"),
        SchemaCase(#"{"maxItems": 2}"#, "[1, 2, 3]", [at("", "must have at most 2 elements, found 3")]),
        SchemaCase(#"{"maxItems": 0}"#, "{}"),
        SchemaCase(#"{"uniqueItems": true}"#, #"[1, "1", [1], {"a": 1}]"#),
        SchemaCase(#"{"uniqueItems": true}"#, #"[1, "1", 1.0]"#, [at("", "must have unique elements, but elements 0 and 2 are equal")]),
        SchemaCase(
            #"{"uniqueItems": true}"#, #"[{"a": 1, "b": 2}, {"b": 2, "a": 1}]"#, [at("", "must have unique elements, but elements 0 and 1 are equal")]
        ),
        SchemaCase(#"{"uniqueItems": false}"#, "[1, 1]"),
    ])
    func counts(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "contains: at least one element matches",
        arguments: [
            SchemaCase(##"{"contains": {"const": 3}}"##, "[1, 3]"),
            SchemaCase(
                ##"{"contains": {"const": 3}}"##, "[1, 2]",
                [
                    at("", ##"must contain an element that matches the "contains" schema at #/contains, but none of its 2 elements does"##)
                ]),
            SchemaCase(
                ##"{"contains": true}"##, "[]",
                [
                    at("", ##"must contain an element that matches the "contains" schema at #/contains, but it is empty"##)
                ]),
            SchemaCase(##"{"contains": false}"##, "{}"),
        ])
    func contains(_ row: SchemaCase) {
        row.check()
    }
}
