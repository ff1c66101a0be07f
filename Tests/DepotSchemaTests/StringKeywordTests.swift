import DepotSchema
import Testing

@Suite("Keywords: minLength, maxLength (in Unicode scalars)")
struct StringKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"minLength": 1}"#, #""a""#),
        SchemaCase(#"{"minLength": 1}"#, #""""#, [at("", "must be at least 1 character long, found 0 characters")]),
        SchemaCase(#"{"minLength": 1}"#, "5"),
        SchemaCase(#"{"minLength": 3}"#, #""ab""#, [at("", "must be at least 3 characters long, found 2 characters")]),
        SchemaCase(#"{"maxLength": 3}"#, #""abc""#),
        SchemaCase(#"{"maxLength": 3}"#, #""abcd""#, [at("", "must be at most 3 characters long, found 4 characters")]),
        SchemaCase(#"{"minLength": 2, "maxLength": 1}"#, #""a""#, [at("", "must be at least 2 characters long, found 1 character")]),
    ])
    func lengths(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "a character is a Unicode scalar (code point), not a grapheme cluster",
        arguments: [
            // "é" precomposed is one scalar; e + combining acute is two, though Swift sees one Character.
            SchemaCase(#"{"maxLength": 1}"#, #""\u00e9""#),
            SchemaCase(#"{"maxLength": 1}"#, #""e\u0301""#, [at("", "must be at most 1 character long, found 2 characters")]),
            // Outside the BMP: one scalar, however many UTF-16 units or UTF-8 bytes.
            SchemaCase(#"{"maxLength": 1}"#, #""\ud83d\ude00""#),
            SchemaCase(#"{"minLength": 2}"#, #""\ud83d\ude00""#, [at("", "must be at least 2 characters long, found 1 character")]),
            // A flag is two regional-indicator scalars.
            SchemaCase(#"{"maxLength": 1}"#, #""\ud83c\uddeb\ud83c\uddf7""#, [at("", "must be at most 1 character long, found 2 characters")]),
        ])
    func unicode(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "pattern: found anywhere unless anchored",
        arguments: [
            SchemaCase(##"{"pattern": "b+"}"##, ##""abbc""##),
            SchemaCase(##"{"pattern": "^a\\d{2}$"}"##, ##""a12""##),
            SchemaCase(##"{"pattern": "^a\\d{2}$"}"##, ##""a123""##, [at("", ##"must match the pattern "^a\\d{2}$", found "a123""##)]),
            SchemaCase(##"{"pattern": "^\\p{L}+$"}"##, ##""ñandú""##),
            SchemaCase(##"{"pattern": "x"}"##, "5"),
        ])
    func pattern(_ row: SchemaCase) {
        row.check()
    }
}
