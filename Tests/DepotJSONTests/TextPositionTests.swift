import DepotJSON
import Testing

@Suite("TextPosition")
struct TextPositionTests {
    @Test(
        "line and column of a byte offset, 1-based, lines ending at LF",
        arguments: [
            ("", 0, 1, 1),
            ("abc", 0, 1, 1),
            ("abc", 2, 1, 3),
            ("abc", 3, 1, 4),
            ("ab\ncd", 2, 1, 3),
            ("ab\ncd", 3, 2, 1),
            ("ab\ncd", 4, 2, 2),
            ("\n\n", 2, 3, 1),
            ("a\r\nb", 3, 2, 1),
            ("abc", 99, 1, 4),
        ] as [(String, Int, Int, Int)])
    func ascii(text: String, offset: Int, line: Int, column: Int) {
        #expect(TextPosition(offset: offset, in: Array(text.utf8)) == TextPosition(line: line, column: column))
    }

    @Test(
        "the column counts Unicode scalars, not bytes",
        arguments: [
            ("é}", 2, 2),  // 'é' is 2 bytes
            ("♀}", 3, 2),  // '♀' is 3 bytes
            ("😀}", 4, 2),  // an emoji is 4 bytes
            ("a😀b♀}", 9, 5),
            ("x\nüü}", 6, 3),
        ] as [(String, Int, Int)])
    func scalars(text: String, offset: Int, column: Int) {
        let bytes = Array(text.utf8)
        #expect(bytes[offset] == UInt8(ascii: "}"))
        #expect(TextPosition(offset: offset, in: bytes).column == column)
    }

    @Test("a leading byte order mark is not counted, and only at the start")
    func byteOrderMark() {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(TextPosition(offset: 3, in: mark + Array("}".utf8)) == TextPosition(line: 1, column: 1))
        #expect(TextPosition(offset: 5, in: mark + Array("ab}".utf8)) == TextPosition(line: 1, column: 3))
        // U+FEFF elsewhere is an ordinary character.
        #expect(TextPosition(offset: 4, in: Array("a".utf8) + mark + Array("}".utf8)) == TextPosition(line: 1, column: 3))
    }

    @Test("malformed UTF-8 counts each byte that is not a continuation byte")
    func malformed() {
        #expect(TextPosition(offset: 2, in: [0xFF, 0xFE, 0x7D]).column == 3)
        #expect(TextPosition(offset: 2, in: [0x80, 0x80, 0x7D]).column == 1)
    }

    @Test("JSONParseError.position(in:) points at the error in the parsed text")
    func parseErrorPosition() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Array("{\n  \"name\": \"Nidoran♀\",\n}".utf8)
        let error = try #require(parseError(bytes))
        #expect(error == failure(.unexpectedCharacter(UInt8(ascii: "}")), at: 29))
        #expect(error.position(in: bytes) == TextPosition(line: 3, column: 1))

        let flat = Array("[\"♀♀\" 1]".utf8)
        let second = try #require(parseError(flat))
        #expect(second.offset == 10)
        #expect(second.position(in: flat).description == "line 1, column 7")
    }
}
