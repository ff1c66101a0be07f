import DepotJSON
import Testing

@Suite("Parser: numbers")
struct ParserNumberTests {
    static let valid = [
        "0", "-0", "7", "-7", "25", "0.5", "-0.5", "1.50", "1E+2", "1e2", "1E2", "1e-2", "0e0", "-0.0e-0",
        "1e400", "-1e400", "12345678901234567890", "-12345678901234567890123456789", "3.141592653589793238462643383279",
        "1.7976931348623157e308", "5e-324", "123.456e+789",
    ]

    @Test("valid numbers keep their literal text", arguments: valid)
    func validNumberKeepsLiteral(literal: String) throws {
        let value = try JSONParser.parse(literal)
        #expect(value.numberValue?.literal == literal)
        #expect(JSONNumber(literal: literal) != nil)
    }

    @Test("valid numbers inside containers", arguments: valid)
    func validNumberInContainers(literal: String) throws {
        let value = try JSONParser.parse("[\(literal), {\"n\":\(literal)} ,\(literal)]")
        let expected = number(literal)
        #expect(value == [expected, ["n": expected], expected])
    }

    @Test func largeNumbersAreNotConverted() throws {
        let value = try JSONParser.parse(#"{"big":12345678901234567890,"huge":1e400,"exact":0.1000000000000000000001}"#)
        #expect(value["big"]?.numberValue?.literal == "12345678901234567890")
        #expect(value["big"]?.numberValue?.intValue == nil)
        #expect(value["huge"]?.numberValue?.literal == "1e400")
        #expect(value["huge"]?.numberValue?.doubleValue == .infinity)
        #expect(value["exact"]?.numberValue?.literal == "0.1000000000000000000001")
    }

    @Test(
        "invalid numbers",
        arguments: [
            ("01", failure(.invalidNumber, at: 1)),
            ("-01", failure(.invalidNumber, at: 2)),
            ("00", failure(.invalidNumber, at: 1)),
            ("1.", failure(.invalidNumber, at: 2)),
            ("1.e5", failure(.invalidNumber, at: 2)),
            (".5", failure(.unexpectedCharacter(UInt8(ascii: ".")), at: 0)),
            ("-", failure(.invalidNumber, at: 1)),
            ("- 1", failure(.invalidNumber, at: 1)),
            ("+1", failure(.unexpectedCharacter(UInt8(ascii: "+")), at: 0)),
            ("1e", failure(.invalidNumber, at: 2)),
            ("1E+", failure(.invalidNumber, at: 3)),
            ("1e-x", failure(.invalidNumber, at: 3)),
            ("0x10", failure(.invalidNumber, at: 1)),
            ("1.5.2", failure(.invalidNumber, at: 3)),
            ("12abc", failure(.invalidNumber, at: 2)),
            ("1-2", failure(.invalidNumber, at: 1)),
            ("NaN", failure(.unexpectedCharacter(UInt8(ascii: "N")), at: 0)),
            ("Infinity", failure(.unexpectedCharacter(UInt8(ascii: "I")), at: 0)),
            ("-Infinity", failure(.invalidNumber, at: 1)),
            ("[01]", failure(.invalidNumber, at: 2)),
            ("[1.]", failure(.invalidNumber, at: 3)),
            (#"{"n":-}"#, failure(.invalidNumber, at: 6)),
        ])
    func invalidNumber(text: String, expected: JSONParseError) {
        #expect(parseError(text) == expected)
    }

    @Test func numberFollowedByDelimiters() throws {
        #expect(try JSONParser.parse("[1,2]") == [1, 2])
        #expect(try JSONParser.parse("[1 ]") == [1])
        #expect(try JSONParser.parse("{\"a\":1}") == ["a": 1])
        #expect(try JSONParser.parse("-0\n") == number("-0"))
    }
}
