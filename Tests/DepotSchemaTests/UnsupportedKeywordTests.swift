import DepotJSON
import DepotSchema
import Testing

@Suite("Keywords the validator does not apply are listed, and never passed over quietly")
struct UnsupportedKeywordTests {
    @Test("every keyword it checks or ignores is known")
    func knownKeywords() {
        let schema = json(
            ##"""
            {
              "$schema": "http://json-schema.org/draft-07/schema#", "$comment": "c", "title": "t", "description": "d",
              "default": 1, "examples": [1], "readOnly": false, "writeOnly": false, "definitions": {"x": {}},
              "type": ["object", "array", "string", "number"], "enum": [1], "const": 1,
              "minimum": 0, "maximum": 1, "exclusiveMinimum": 0, "exclusiveMaximum": 1, "minLength": 0, "maxLength": 1,
              "items": [{}], "additionalItems": false, "minItems": 0, "maxItems": 1, "uniqueItems": true,
              "required": [], "properties": {}, "additionalProperties": {}, "minProperties": 0, "maxProperties": 1,
              "allOf": [{}], "anyOf": [{}], "oneOf": [{}], "not": false, "if": {}, "then": {}, "else": {},
              "$id": "http://example.com/s", "multipleOf": 2, "pattern": "^a", "contains": {}, "patternProperties": {"^x": {}},
              "propertyNames": {"maxLength": 3}, "dependencies": {"a": ["b"], "c": {}}
            }
            """##)
        #expect(JSONSchema.unsupportedKeywords(in: schema).isEmpty)
    }

    @Test("each kind of problem, where it is, and what it says")
    func listed() {
        let schema = json(
            ##"""
            {
              "properties": {
                "a": {"type": "string", "contentEncoding": "base64", "format": "date"},
                "b": {"requried": ["x"]},
                "c": {"$ref": "#/definitions/d", "minimum": 3, "description": "fine"},
                "d": {"minimum": "3", "exclusiveMinimum": true, "type": "int", "required": "a"},
                "e": {"$ref": "#/nowhere"},
                "f": 5
              },
              "definitions": {"d": {"multipleOf": 2, "pattern": "(unclosed"}}
            }
            """##)
        let descriptions = JSONSchema.unsupportedKeywords(in: schema).map(\.description)
        #expect(
            descriptions == [
                ##"#/properties/a/contentEncoding: "contentEncoding" is a draft-07 keyword this validator does not implement"##,
                ##"#/properties/a/format: "format" is a draft-07 keyword this validator does not implement"##,
                ##"#/properties/b/requried: "requried" is not a draft-07 keyword (a typo?); it is ignored"##,
                ##"#/properties/c/minimum: "minimum" is ignored, as draft-07 ignores everything next to "$ref""##,
                ##"#/properties/d/minimum: "minimum" must be a number, found string "3""##,
                ##"#/properties/d/exclusiveMinimum: "exclusiveMinimum" must be a number, found boolean true (the boolean form is draft-04's)"##,
                ##"#/properties/d/type: "type" must be a type name (null, boolean, object, array, number, integer, string) or an array of different ones, found string "int""##,
                ##"#/properties/d/required: "required" must be an array of member names, found string "a""##,
                ##"#/properties/e/$ref: "$ref" "#/nowhere" leads nowhere: # has no member "nowhere""##,
                ##"#/properties/f: must be a schema (an object or a boolean), found number 5"##,
                ##"#/definitions/d/pattern: "pattern" is not a regular expression: expected ')'"##,
            ])
    }

    @Test(
        "validate refuses instances that an unimplemented or malformed keyword applies to",
        arguments: [
            SchemaCase(
                ##"{"type": "string", "format": "date"}"##, ##""2026-11-23""##,
                [
                    at("", ##"cannot be checked: #/format: "format" is a draft-07 keyword this validator does not implement"##)
                ]),
            // format applies to strings only.
            SchemaCase(##"{"type": "string", "format": "date"}"##, "5", [at("", "must be a string, found number 5")]),
            SchemaCase(##"{"pattern": "(x"}"##, "4"),
            SchemaCase(
                ##"{"pattern": "(x"}"##, ##""x""##, [at("", ##"cannot be checked: #/pattern: "pattern" is not a regular expression: expected ')'"##)]),
            SchemaCase(
                ##"{"multipleOf": 0}"##, "4",
                [at("", ##"cannot be checked: #/multipleOf: "multipleOf" must be a number greater than 0, found number 0"##)]),
            SchemaCase(##"{"minimum": "3"}"##, "1", [at("", ##"cannot be checked: #/minimum: "minimum" must be a number, found string "3""##)]),
            SchemaCase(##"{"minimum": "3"}"##, ##""x""##),
            SchemaCase(
                ##"{"type": "int"}"##, "1",
                [
                    at(
                        "",
                        ##"cannot be checked: #/type: "type" must be a type name (null, boolean, object, array, number, integer, string) or an array of different ones, found string "int""##
                    )
                ]),
            SchemaCase(
                ##"{"minLength": -1}"##, ##""""##,
                [at("", ##"cannot be checked: #/minLength: "minLength" must be a non-negative integer, found number -1"##)]),
            SchemaCase(
                ##"{"maxItems": 1.5}"##, "[]",
                [at("", ##"cannot be checked: #/maxItems: "maxItems" must be a non-negative integer, found number 1.5"##)]),
            SchemaCase(
                ##"{"allOf": []}"##, "1", [at("", ##"cannot be checked: #/allOf: "allOf" must be a non-empty array of schemas, found an array"##)]),
            SchemaCase(##"{"items": 5}"##, "[]"),
            SchemaCase(
                ##"{"items": 5}"##, "[1]", [at("/0", "cannot be checked: #/items: must be a schema (an object or a boolean), found number 5")]),
            SchemaCase("5", "1", [at("", "cannot be checked: #: must be a schema (an object or a boolean), found number 5")]),
            // Unknown keywords are ignored, as draft-07 says, though they are listed.
            SchemaCase(##"{"requried": ["a"]}"##, "{}"),
        ])
    func failsClosed(_ row: SchemaCase) {
        row.check()
    }

    @Test("a schema whose place is not given is described relative to itself")
    func relativeLocations() {
        let document = json(##"{"s": {"properties": {"a": {"format": "x"}}}}"##)
        let schema = JSONSchema(document["s"]!, root: document)
        #expect(
            schema.unsupportedKeywords.map(\.description) == [
                ##"/properties/a/format: "format" is a draft-07 keyword this validator does not implement"##
            ])
        let placed = JSONSchema(document["s"]!, root: document, location: "#/s")
        #expect(placed.unsupportedKeywords.map(\.location) == ["#/s/properties/a/format"])
    }
}
