import DepotSchema
import Testing

@Suite("Keywords: minimum, maximum, exclusiveMinimum, exclusiveMaximum (compared exactly)")
struct NumberKeywordTests {
    @Test(arguments: [
        SchemaCase(#"{"minimum": 0}"#, "0"),
        SchemaCase(#"{"minimum": 0}"#, "-0"),
        SchemaCase(#"{"minimum": 0}"#, "-1", [at("", "must be at least 0, found -1")]),
        SchemaCase(#"{"minimum": 0}"#, "-0.0001", [at("", "must be at least 0, found -0.0001")]),
        SchemaCase(#"{"minimum": 0}"#, #""-1""#),
        SchemaCase(#"{"minimum": 0.1}"#, "0.1"),
        SchemaCase(#"{"minimum": 0.1}"#, "1e-1"),
        SchemaCase(#"{"minimum": 0.1}"#, "0.09999999999999999999", [at("", "must be at least 0.1, found 0.09999999999999999999")]),
        SchemaCase(#"{"exclusiveMinimum": 0}"#, "0", [at("", "must be greater than 0, found 0")]),
        SchemaCase(#"{"exclusiveMinimum": 0}"#, "0.0", [at("", "must be greater than 0, found 0.0")]),
        // A Double would round this to 0.
        SchemaCase(#"{"exclusiveMinimum": 0}"#, "1e-400"),
        SchemaCase(#"{"maximum": 10}"#, "10"),
        SchemaCase(#"{"maximum": 10}"#, "1.0e1"),
        SchemaCase(#"{"maximum": 10}"#, "100e-1"),
        SchemaCase(#"{"maximum": 10}"#, "10.5", [at("", "must be at most 10, found 10.5")]),
        SchemaCase(#"{"exclusiveMaximum": 10}"#, "9.999"),
        SchemaCase(#"{"exclusiveMaximum": 10}"#, "10.0", [at("", "must be less than 10, found 10.0")]),
        SchemaCase(#"{"minimum": 1, "maximum": 3}"#, "-5", [at("", "must be at least 1, found -5")]),
        SchemaCase(#"{"minimum": 5, "exclusiveMinimum": 5}"#, "5", [at("", "must be greater than 5, found 5")]),
    ])
    func bounds(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "numbers too large or too precise for a Double still compare correctly",
        arguments: [
            // Equal as Doubles, not equal as numbers.
            SchemaCase(#"{"maximum": 12345678901234567890}"#, "12345678901234567890"),
            SchemaCase(
                #"{"maximum": 12345678901234567890}"#, "12345678901234567891",
                [at("", "must be at most 12345678901234567890, found 12345678901234567891")]),
            SchemaCase(#"{"minimum": 9007199254740993}"#, "9007199254740992", [at("", "must be at least 9007199254740993, found 9007199254740992")]),
            // Beyond Double's range.
            SchemaCase(#"{"maximum": 1e400}"#, "1e399"),
            SchemaCase(#"{"maximum": 1e400}"#, "1e401", [at("", "must be at most 1e400, found 1e401")]),
            SchemaCase(#"{"minimum": -1e400}"#, "-1e401", [at("", "must be at least -1e400, found -1e401")]),
            SchemaCase(#"{"minimum": -1e400}"#, "-9.99e399"),
            SchemaCase(#"{"exclusiveMaximum": 1e-400}"#, "1e-401"),
            SchemaCase(#"{"exclusiveMaximum": 1e-400}"#, "0.1e-399", [at("", "must be less than 1e-400, found 0.1e-399")]),
        ])
    func exactComparison(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "integer bounds on the kind of values the document has",
        arguments: [
            SchemaCase(#"{"type": "integer", "minimum": 1}"#, "1"),
            SchemaCase(#"{"type": "integer", "minimum": 1}"#, "0", [at("", "must be at least 1, found 0")]),
            SchemaCase(#"{"type": "integer", "minimum": 1}"#, "1.5", [at("", "must be an integer, found number 1.5")]),
        ])
    func integerBounds(_ row: SchemaCase) {
        row.check()
    }

    @Test(
        "multipleOf, exactly: decimals, huge and tiny numbers",
        arguments: [
            SchemaCase(##"{"multipleOf": 2}"##, "10"),
            SchemaCase(##"{"multipleOf": 2}"##, "7", [at("", "must be a multiple of 2, found 7")]),
            SchemaCase(##"{"multipleOf": 0.1}"##, "0.3"),
            SchemaCase(##"{"multipleOf": 0.1}"##, "0.35", [at("", "must be a multiple of 0.1, found 0.35")]),
            SchemaCase(##"{"multipleOf": 1.5}"##, "4.5"),
            SchemaCase(##"{"multipleOf": 0.0001}"##, "0.0075"),
            SchemaCase(##"{"multipleOf": 5}"##, "1e400"),
            SchemaCase(##"{"multipleOf": 3}"##, "1e400", [at("", "must be a multiple of 3, found 1e400")]),
            SchemaCase(##"{"multipleOf": 1e-400}"##, "7e-390"),
            SchemaCase(##"{"multipleOf": 7}"##, "12345678901234567890123456789012345678901234567890120"),
            SchemaCase(
                ##"{"multipleOf": 7}"##, "12345678901234567890123456789012345678901234567890123",
                [
                    at("", "must be a multiple of 7, found 123456789012345678901234567890123456789…")
                ]),
            SchemaCase(##"{"multipleOf": 2}"##, "-6"),
            SchemaCase(##"{"multipleOf": 2}"##, "0"),
        ])
    func multipleOf(_ row: SchemaCase) {
        row.check()
    }
}
