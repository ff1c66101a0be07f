import DepotJSON
import Testing

@Suite("Parser: malformed documents")
struct ParserErrorTests {
    @Test(
        "no value at all",
        arguments: [
            ("", 0), (" ", 1), ("\n", 1), (" \t\r\n ", 5),
        ])
    func empty(text: String, offset: Int) {
        #expect(parseError(text) == failure(.empty, at: offset))
    }

    @Test func emptyFromEveryEntryPoint() {
        #expect(throws: failure(.empty, at: 0)) { try JSONParser.parse("") }
        #expect(throws: failure(.empty, at: 0)) { try JSONParser.parse([UInt8]()) }
    }

    @Test(
        "something after the value",
        arguments: [
            ("1 2", 2),
            ("{} x", 3),
            ("[] []", 3),
            ("nullx", 4),
            ("true false", 5),
            ("\"a\"\"b\"", 3),
            ("{}}", 2),
            ("[]]", 2),
            ("1,", 1),
            ("{\"a\":1} \n ,", 10),
        ])
    func trailingContent(text: String, offset: Int) {
        #expect(parseError(text) == failure(.trailingContent, at: offset))
    }

    @Test(
        "text that ends inside a value",
        arguments: [
            ("[", 1), ("[1", 2), ("[1,", 3), ("[1, ", 4), ("[[]", 3),
            ("{", 1), ("{ ", 2), ("{\"a\"", 4), ("{\"a\":", 5), ("{\"a\":1", 6), ("{\"a\":1,", 7), ("{\"a\":1, \"b", 10),
            ("\"abc", 4), ("t", 1), ("tru", 3), ("fals", 4), ("nul", 3), ("[true", 5), ("[{\"a\":[", 7),
        ])
    func unexpectedEnd(text: String, offset: Int) {
        #expect(parseError(text) == failure(.unexpectedEnd, at: offset))
    }

    @Test(
        "characters that cannot appear there",
        arguments: [
            ("[1,]", UInt8(ascii: "]"), 3),
            ("[,1]", UInt8(ascii: ","), 1),
            ("[1 2]", UInt8(ascii: "2"), 3),
            ("[1}", UInt8(ascii: "}"), 2),
            ("{,}", UInt8(ascii: ","), 1),
            ("{\"a\" 1}", UInt8(ascii: "1"), 5),
            ("{\"a\":1,}", UInt8(ascii: "}"), 7),
            ("{\"a\":1]", UInt8(ascii: "]"), 6),
            ("{\"a\":}", UInt8(ascii: "}"), 5),
            ("{1:2}", UInt8(ascii: "1"), 1),
            ("{a:1}", UInt8(ascii: "a"), 1),
            ("{'a':1}", UInt8(ascii: "'"), 1),
            ("{\"a\"=1}", UInt8(ascii: "="), 4),
            ("{\"a\":1 \"b\":2}", UInt8(ascii: "\""), 7),
            ("]", UInt8(ascii: "]"), 0),
            ("}", UInt8(ascii: "}"), 0),
            (":", UInt8(ascii: ":"), 0),
            ("'a'", UInt8(ascii: "'"), 0),
            ("tRue", UInt8(ascii: "R"), 1),
            ("nulL", UInt8(ascii: "L"), 3),
            ("True", UInt8(ascii: "T"), 0),
            ("undefined", UInt8(ascii: "u"), 0),
            ("[1,\u{0B}2]", 0x0B, 3),
            ("\u{0C}1", 0x0C, 0),
        ])
    func unexpectedCharacter(text: String, byte: UInt8, offset: Int) {
        #expect(parseError(text) == failure(.unexpectedCharacter(byte), at: offset))
    }

    @Test func descriptionsAreReadable() {
        #expect(failure(.unexpectedCharacter(UInt8(ascii: "}")), at: 17).description == "unexpected character '}' at byte 17")
        #expect(failure(.tooDeep(limit: 512), at: 512).description == "nesting deeper than 512 levels at byte 512")
        #expect(failure(.invalidUTF8, at: 3).description == "invalid UTF-8 at byte 3")
        #expect(failure(.unexpectedEnd, at: 10).description == "unexpected end of text at byte 10")
        #expect(failure(.unexpectedCharacter(0x01), at: 0).description == "unexpected character 0x01 at byte 0")
        #expect(failure(.unexpectedCharacter(0xEF), at: 2).description == "unexpected character 0xEF at byte 2")
        #expect(failure(.unexpectedCharacter(0x20), at: 2).description == "unexpected character 0x20 at byte 2")
        #expect(failure(.empty, at: 0).description == "no JSON value in the text (empty or only whitespace)")
    }

    @Test func descriptionsOfRealErrors() {
        #expect(parseError(#"{"a":1,"b":[true,}"#)?.description == "unexpected character '}' at byte 17")
        #expect(parseError("[1 2")?.description == "unexpected character '2' at byte 3")
        #expect(parseError("{\"a\":")?.description == "unexpected end of text at byte 5")
        #expect(parseError("\"\\q\"")?.description == "invalid escape sequence at byte 1")
        #expect(parseError("\"\\udc00\"")?.description == "unpaired UTF-16 surrogate escape at byte 1")
        #expect(parseError("\"a\nb\"")?.description == "unescaped control character in string at byte 2")
        #expect(parseError("01")?.description == "invalid number at byte 1")
        #expect(parseError("1 2")?.description == "unexpected content after the JSON value at byte 2")
    }

    @Test func everyReasonHasADistinctDescription() {
        let reasons: [JSONParseError.Reason] = [
            .unexpectedEnd, .unexpectedCharacter(0x41), .invalidUTF8, .invalidEscape, .loneSurrogate,
            .controlCharacterInString, .invalidNumber, .tooDeep(limit: 4), .trailingContent, .empty,
        ]
        let descriptions = Set(reasons.map { failure($0, at: 9).description })
        #expect(descriptions.count == reasons.count)
    }

    @Test func everyPrefixOfAValidDocumentFailsCleanly() {
        let text = Array(#"{"a":[1,-2.5e+3,true,false,null,"x\u00e9\n"],"b":{"c":{}}}"#.utf8)
        for length in 0..<text.count {
            let error = parseError(Array(text[0..<length]))
            #expect(error != nil, "prefix of length \(length) parsed")
            if let error {
                #expect(error.offset <= length)
            }
        }
        #expect(parseError(text) == nil)
    }
}
