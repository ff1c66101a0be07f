import DepotJSON
import DepotSchema
import Testing

@Suite("Keywords: $ref, resolved as a JSON Pointer into the document")
struct ReferenceTests {
    @Test(arguments: [
        SchemaCase(
            ##"{"definitions": {"pos": {"type": "integer", "minimum": 0}}, "properties": {"n": {"$ref": "#/definitions/pos"}}}"##, ##"{"n": 0}"##),
        SchemaCase(
            ##"{"definitions": {"pos": {"type": "integer", "minimum": 0}}, "properties": {"n": {"$ref": "#/definitions/pos"}}}"##, ##"{"n": -1}"##,
            [
                at("/n", "must be at least 0, found -1")
            ]),
        // ~1 is "/", ~0 is "~", and the fragment may be percent-encoded.
        SchemaCase(
            ##"{"definitions": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}, "e%f": {"type": "null"}, "é": {"type": "boolean"}}, "items": [{"$ref": "#/definitions/a~1b"}, {"$ref": "#/definitions/c~0d"}, {"$ref": "#/definitions/e%25f"}, {"$ref": "#/definitions/%C3%A9"}]}"##,
            ##"[1, "x", 1, 1]"##,
            [
                at("/0", "must be a string, found number 1"),
                at("/1", ##"must be an integer, found string "x""##),
                at("/2", "must be null, found number 1"),
                at("/3", "must be a boolean, found number 1"),
            ]
        ),
        // Into an array, and to the root.
        SchemaCase(
            ##"{"allOf": [{"type": "object"}], "properties": {"x": {"$ref": "#/allOf/0"}}}"##, ##"{"x": "s"}"##,
            [at("/x", ##"must be an object, found string "s""##)]),
        SchemaCase(
            ##"{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}"##,
            ##"{"children": [{"children": [{"children": 5}]}]}"##,
            [
                at("/children/0/children/0/children", "must be an array, found number 5")
            ]),
        // Draft-07 ignores everything next to $ref.
        SchemaCase(
            ##"{"definitions": {"s": {"type": "string"}}, "properties": {"x": {"$ref": "#/definitions/s", "minLength": 5}}}"##, ##"{"x": "ab"}"##),
        // A $ref to a boolean schema.
        SchemaCase(
            ##"{"definitions": {"never": false}, "properties": {"x": {"$ref": "#/definitions/never"}}}"##, ##"{"x": 1}"##,
            [at("/x", "is not allowed here (its schema is false)")]),
    ])
    func references(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "a $ref cycle that never reaches a schema is reported, not followed forever",
        arguments: [
            SchemaCase(
                ##"{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "properties": {"x": {"$ref": "#/definitions/a"}}}"##,
                ##"{"x": 1}"##,
                [at("/x", ##"cannot be checked: "$ref" goes round in a circle: #/definitions/a → #/definitions/b → #/definitions/a"##)]
            ),
            SchemaCase(##"{"allOf": [{"$ref": "#"}]}"##, "1", [at("", ##"cannot be checked: "$ref" goes round in a circle: # → #"##)]),
            // Recursion that moves through the instance is fine.
            SchemaCase(##"{"items": {"$ref": "#"}}"##, "[[[[]]], []]"),
        ])
    func cycles(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "a $ref that leads nowhere fails closed where it applies",
        arguments: [
            SchemaCase(##"{"definitions": {}, "properties": {"x": {"$ref": "#/definitions/missing"}}}"##, "{}"),
            SchemaCase(
                ##"{"definitions": {}, "properties": {"x": {"$ref": "#/definitions/missing"}}}"##, ##"{"x": 1}"##,
                [
                    at(
                        "/x",
                        ##"cannot be checked: #/properties/x/$ref: "$ref" "#/definitions/missing" leads nowhere: #/definitions has no member "missing""##
                    )
                ]),
            SchemaCase(
                ##"{"items": [{"$ref": "#/items/5"}]}"##, "[1]",
                [
                    at("/0", ##"cannot be checked: #/items/0/$ref: "$ref" "#/items/5" leads nowhere: #/items has no element "5" (it has 1)"##)
                ]),
            SchemaCase(
                ##"{"$ref": "other.json#/a"}"##, "1",
                [
                    at(
                        "",
                        ##"cannot be checked: #/$ref: "$ref" "other.json#/a" points to "other.json", a document this validator does not have (it never fetches one)"##
                    )
                ]),
            SchemaCase(
                ##"{"$ref": "#missing"}"##, "1",
                [
                    at("", ##"cannot be checked: #/$ref: "$ref" "#missing" names "#missing", which no "$id" declares"##)
                ]),
            SchemaCase(
                ##"{"$ref": "#/a~2"}"##, "1",
                [
                    at(
                        "",
                        ##"cannot be checked: #/$ref: "$ref" "#/a~2" is not a JSON Pointer (it must be "#" or start with "#/", and "~" must be followed by 0 or 1)"##
                    )
                ]),
            SchemaCase(
                ##"{"$ref": "#/title", "title": "x"}"##, "1",
                [
                    at("", ##"cannot be checked: #/$ref: "$ref" "#/title" leads to string "x", not a schema"##)
                ]),
            SchemaCase(##"{"$ref": 5}"##, "1", [at("", ##"cannot be checked: #/$ref: "$ref" must be a string, found number 5"##)]),
        ])
    func unresolvable(_ row: SchemaCase) {
        row.check()
    }

    @Test("a schema inside a document resolves $refs against the whole document")
    func againstRoot() {
        let document = json(
            ##"{"components": {"schemas": {"ID": {"type": "string"}, "Pair": {"type": "array", "items": {"$ref": "#/components/schemas/ID"}}}}}"##)
        let schema = JSONSchema(["$ref": "#/components/schemas/Pair"], root: document)
        #expect(schema.validate(json(##"["a", "b"]"##)).isEmpty)
        #expect(schema.validate(json(##"["a", 2]"##)).ignoringKeywords == [at("/1", "must be a string, found number 2")])
        #expect(schema.unsupportedKeywords.isEmpty)
    }

    @Test("$id names schemas and sets the base that relative references resolve against")
    func identifiers() {
        let schema = JSONSchema(
            json(
                ##"""
                {"$id": "http://example.com/root.json",
                 "definitions": {"A": {"$id": "#foo", "type": "integer"},
                                 "B": {"$id": "other.json", "definitions": {"X": {"$id": "t/inner.json", "type": "string"}}}},
                 "properties": {"a": {"$ref": "#foo"}, "b": {"$ref": "t/inner.json"}, "c": {"$ref": "other.json#/definitions/X"}}}
                """##))
        #expect(schema.unsupportedKeywords.isEmpty, "\(schema.unsupportedKeywords)")
        #expect(schema.validate(json(##"{"a": 1, "b": "x", "c": "y"}"##)).isEmpty)
        #expect(
            schema.validate(json(##"{"a": "1", "b": 2}"##)).ignoringKeywords == [
                at("/a", "must be an integer, found string \"1\""), at("/b", "must be a string, found number 2"),
            ])
    }

    @Test("a document given by URI is followed into; nothing else is fetched")
    func givenDocuments() {
        let schema = JSONSchema(
            json(##"{"$ref": "http://example.com/item.json#/definitions/id"}"##),
            documents: [
                "http://example.com/item.json": json(##"{"definitions": {"id": {"type": "string", "minLength": 1}}}"##)
            ])
        #expect(schema.validate(json(##""x""##)).isEmpty)
        #expect(schema.validate(json(##""""##)).ignoringKeywords == [at("", "must be at least 1 character long, found 0 characters")])
    }
}
