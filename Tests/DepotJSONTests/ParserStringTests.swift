import DepotJSON
import Testing

@Suite("Parser: strings")
struct ParserStringTests {
    @Test(
        "escapes",
        arguments: [
            (#""\"""#, "\""),
            (#""\\""#, "\\"),
            (#""\/""#, "/"),
            (#""\b""#, "\u{08}"),
            (#""\f""#, "\u{0C}"),
            (#""\n""#, "\n"),
            (#""\r""#, "\r"),
            (#""\t""#, "\t"),
            (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
            (#""\u0041""#, "A"),
            (#""\u00e9""#, "é"),
            (#""\u00E9""#, "é"),
            (#""\u20AC""#, "€"),
            (#""\u0000""#, "\u{0}"),
            (#""\u001F""#, "\u{1F}"),
            (#""\uFFFF""#, "\u{FFFF}"),
            (#""\ud83d\ude00""#, "😀"),
            (#""\uD83D\uDE00""#, "😀"),
            (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
            (#""\uD800\uDC00""#, "\u{10000}"),
            (#""a\nb""#, "a\nb"),
            (#""before \u00e9 after""#, "before é after"),
            (#""0123456789abcdef\n0123456789abcdef\t!""#, "0123456789abcdef\n0123456789abcdef\t!"),
            (#""\\\\\\\\\\\\\\\\\\""#, "\\\\\\\\\\\\\\\\\\"),
            (#""caf\u00e9 \"x\" na\u0131ve \ud83d\ude00 end""#, "café \"x\" naıve 😀 end"),
        ])
    func escape(text: String, expected: String) throws {
        #expect(try JSONParser.parse(text) == .string(expected))
    }

    @Test(
        "raw UTF-8 is kept",
        arguments: [
            "héllo", "日本語のテキスト", "😀👍🏽", "\u{7F}", "\u{FEFF}bom inside", "mixed ascii and ünïcödé over eight bytes",
            "\u{10FFFF}", "\u{800}\u{FFFD}",
        ])
    func rawUTF8(text: String) throws {
        #expect(try JSONParser.parse("\"\(text)\"") == .string(text))
        #expect(try JSONParser.parse("{\"\(text)\":\"\(text)\"}") == [text: .string(text)])
    }

    @Test func escapesInKeys() throws {
        let value = try JSONParser.parse(#"{"a\nb":1,"\u00e9":2}"#)
        #expect(value.objectValue?.keys == ["a\nb", "é"])
    }

    @Test func longStrings() throws {
        let long = String(repeating: "abcdefghij", count: 1_000)
        #expect(try JSONParser.parse("\"\(long)\"") == .string(long))
        let escaped = String(repeating: #"abc\"def\\"#, count: 500)
        let expected = String(repeating: "abc\"def\\", count: 500)
        #expect(try JSONParser.parse("\"\(escaped)\"") == .string(expected))
    }

    @Test(
        "lone surrogate escapes are rejected",
        arguments: [
            (#""\ud800""#, failure(.loneSurrogate, at: 1)),
            (#""\uDBFF ""#, failure(.loneSurrogate, at: 1)),
            (#""\udc00""#, failure(.loneSurrogate, at: 1)),
            (#""\uDFFF\uD800""#, failure(.loneSurrogate, at: 1)),
            (#""ab\ud800x""#, failure(.loneSurrogate, at: 3)),
            (#""\ud800\u0041""#, failure(.loneSurrogate, at: 1)),
            (#""\ud800\ud800""#, failure(.loneSurrogate, at: 1)),
            (#""\ud800\n""#, failure(.loneSurrogate, at: 1)),
            (#""\ud83d\ude00\ude00""#, failure(.loneSurrogate, at: 13)),
        ])
    func loneSurrogate(text: String, expected: JSONParseError) {
        #expect(parseError(text) == expected)
    }

    @Test(
        "invalid escapes are rejected",
        arguments: [
            (#""\x""#, failure(.invalidEscape, at: 1)),
            (#""\a""#, failure(.invalidEscape, at: 1)),
            (#""\'""#, failure(.invalidEscape, at: 1)),
            (#""\U0041""#, failure(.invalidEscape, at: 1)),
            (#""\u12G4""#, failure(.invalidEscape, at: 1)),
            (#""\u12""#, failure(.invalidEscape, at: 1)),
            (#""ok \u-123""#, failure(.invalidEscape, at: 4)),
            (#""\ud83d\uZZZZ""#, failure(.invalidEscape, at: 7)),
            ("\"\\ \"", failure(.invalidEscape, at: 1)),
        ])
    func invalidEscape(text: String, expected: JSONParseError) {
        #expect(parseError(text) == expected)
    }

    @Test("raw control characters are rejected", arguments: [UInt8(0x00), 0x01, 0x09, 0x0A, 0x0D, 0x1F])
    func rawControlCharacter(byte: UInt8) {
        #expect(parseError(quoted([byte])) == failure(.controlCharacterInString, at: 1))
        #expect(parseError(quoted(Array("0123456789".utf8) + [byte])) == failure(.controlCharacterInString, at: 11))
    }

    /// The scanner skips eight plain bytes at a time; a byte needing attention must be noticed at any position.
    @Test func specialBytesAreNoticedAtEveryPosition() throws {
        let filler = Array("abcdefghijklmnopqrstuvwx".utf8)
        for position in 0..<filler.count {
            for byte in UInt8(0x00)...UInt8(0xFF) where byte < 0x20 || byte >= 0x80 {
                var content = filler
                content[position] = byte
                let expected =
                    byte < 0x20
                    ? failure(.controlCharacterInString, at: 1 + position)
                    : failure(.invalidUTF8, at: 1 + position)
                #expect(parseError(quoted(content)) == expected)
            }
            var withEscape = filler
            withEscape.replaceSubrange(position..<position + 1, with: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            var unescaped = filler
            unescaped[position] = 0x0A
            #expect(try JSONParser.parse(quoted(withEscape)) == .string(String(decoding: unescaped, as: UTF8.self)))
            var withQuote = filler
            withQuote[position] = UInt8(ascii: "\"")
            #expect(parseError(quoted(withQuote)) == failure(.trailingContent, at: position + 2))
        }
    }

    @Test func deleteIsAllowedRaw() throws {
        #expect(try JSONParser.parse(quoted([0x7F])) == .string("\u{7F}"))
    }

    @Test(
        "invalid UTF-8 is rejected at the start of the bad sequence",
        arguments: [
            ([UInt8(0xC3), 0x28], 1),  // lead byte followed by ASCII
            ([0xED, 0xA0, 0x80], 1),  // UTF-16 surrogate D800 encoded in UTF-8
            ([0xED, 0xBF, 0xBF], 1),  // surrogate DFFF
            ([0xF8, 0x88, 0x80, 0x80, 0x80], 1),  // five-byte form
            ([0xFC, 0x84, 0x80, 0x80, 0x80, 0x80], 1),
            ([0xC0, 0xAF], 1),  // overlong '/'
            ([0xC1, 0xBF], 1),  // overlong
            ([0xE0, 0x80, 0xAF], 1),  // overlong three-byte
            ([0xF0, 0x80, 0x80, 0xAF], 1),  // overlong four-byte
            ([0xF4, 0x90, 0x80, 0x80], 1),  // above U+10FFFF
            ([0xF5, 0x80, 0x80, 0x80], 1),
            ([0x80], 1),  // lone continuation byte
            ([0xBF], 1),
            ([0xFE], 1),
            ([0xFF], 1),
            ([0xE2, 0x82], 1),  // cut short before the closing quote
            ([0x61, 0x62, 0xC3, 0x28], 3),
            (Array("abcdefghijklmnopqrst".utf8) + [0xC3, 0x28], 21),
            (Array("é日".utf8) + [0xED, 0xA0, 0x80], 6),
        ])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        #expect(parseError(quoted(bytes)) == failure(.invalidUTF8, at: offset))
    }

    @Test func invalidUTF8InKey() {
        #expect(parseError(Array(#"{"ab"#.utf8) + [0xC0, 0xAF] + Array(#"":1}"#.utf8)) == failure(.invalidUTF8, at: 4))
    }

    @Test func nonASCIIOutsideStringsIsAnUnexpectedCharacter() {
        #expect(parseError([0xC3, 0xA9]) == failure(.unexpectedCharacter(0xC3), at: 0))
        #expect(parseError(Array("[1,".utf8) + [0xE2, 0x82, 0xAC] + [0x5D]) == failure(.unexpectedCharacter(0xE2), at: 3))
    }

    @Test func cutOffInsideStrings() {
        #expect(parseError("\"abc") == failure(.unexpectedEnd, at: 4))
        #expect(parseError("\"abcdefghijklmnop") == failure(.unexpectedEnd, at: 17))
        #expect(parseError("\"\\") == failure(.unexpectedEnd, at: 2))
        #expect(parseError("\"\\u12") == failure(.unexpectedEnd, at: 5))
        #expect(parseError("\"\\ud83d") == failure(.unexpectedEnd, at: 7))
        #expect(parseError("\"\\ud83d\\") == failure(.unexpectedEnd, at: 8))
        #expect(parseError("\"\\ud83d\\ude") == failure(.unexpectedEnd, at: 11))
        #expect(parseError([0x22, 0xC3]) == failure(.unexpectedEnd, at: 2))
        #expect(parseError([0x22, 0xF0, 0x9F, 0x98]) == failure(.unexpectedEnd, at: 4))
    }
}
