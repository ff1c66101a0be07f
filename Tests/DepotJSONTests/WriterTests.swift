import DepotJSON
import Testing

@Suite("Writer")
struct WriterTests {
    @Test(
        "string escaping",
        arguments: [
            ("", #""""#),
            ("plain", #""plain""#),
            ("\"", #""\"""#),
            ("\\", #""\\""#),
            ("/", #""/""#),
            ("\u{08}\u{0C}\n\r\t", #""\b\f\n\r\t""#),
            ("\u{0}", #""\u0000""#),
            ("\u{01}\u{1B}\u{1F}", #""\u0001\u001b\u001f""#),
            ("\u{0B}", #""\u000b""#),
            ("\u{7F}", "\"\u{7F}\""),
            ("é日😀", "\"é日😀\""),
            ("\u{2028}\u{2029}", #""\u2028\u2029""#),
            ("a\u{2028}b\u{2029}c\u{201C}", "\"a\\u2028b\\u2029c\u{201C}\""),
            ("say \"hi\"\n", #""say \"hi\"\n""#),
            ("0123456789abcdef\"0123456789abcdef", #""0123456789abcdef\"0123456789abcdef""#),
            ("0123456789abcdefghij\\", #""0123456789abcdefghij\\""#),
            ("\nabcdefghijklmnopqrstuvwxyz", #""\nabcdefghijklmnopqrstuvwxyz""#),
            ("ünïcödé wörds and \"quotes\" in a longer line\twith tabs", #""ünïcödé wörds and \"quotes\" in a longer line\twith tabs""#),
        ])
    func escaping(string: String, expected: String) {
        var output: [UInt8] = []
        JSONWriter.writeString(string, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(JSONValue.string(string).jsonText == expected)
    }

    @Test func everyControlCharacterIsEscaped() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let text = JSONValue.string(controls).jsonText
        #expect(!text.utf8.contains { $0 < 0x20 })
        #expect(try JSONParser.parse(text) == .string(controls))
    }

    @Test(
        "scalars",
        arguments: [
            (JSONValue.null, "null"),
            (.bool(true), "true"),
            (.bool(false), "false"),
            (number("0"), "0"),
            (number("-0"), "-0"),
            (number("1.50"), "1.50"),
            (number("1e400"), "1e400"),
            (number("12345678901234567890"), "12345678901234567890"),
            (number("1E+2"), "1E+2"),
            (42, "42"),
            (-7, "-7"),
            ("text", #""text""#),
        ])
    func scalar(value: JSONValue, expected: String) {
        #expect(value.jsonText == expected)
    }

    @Test func containersAreCompactAndOrdered() {
        let value: JSONValue = ["zebra": [1, true, nil, "x"], "apple": [:], "mango": [], "nested": ["a": ["b": [[]]]]]
        #expect(value.jsonText == #"{"zebra":[1,true,null,"x"],"apple":{},"mango":[],"nested":{"a":{"b":[[]]}}}"#)
    }

    @Test func duplicateKeysAreWrittenInOrder() {
        let object = JSONObject([
            .init(key: "a", value: 1), .init(key: "b", value: 2), .init(key: "a", value: 3),
        ])
        #expect(JSONValue.object(object).jsonText == #"{"a":1,"b":2,"a":3}"#)
    }

    @Test func compactOutputHasNoWhitespaceOutsideStrings() throws {
        for text in RoundTripTests.corpus {
            let value = try JSONParser.parse(text)
            let bytes = value.jsonBytes
            #expect(!bytes.contains(0x0A) && !bytes.contains(0x0D), "raw newline in \(text)")
            let outside = Self.bytesOutsideStrings(bytes)
            #expect(!outside.contains(0x20) && !outside.contains(0x09), "whitespace in \(value.jsonText)")
        }
    }

    @Test func jsonBytesAndJSONTextAgree() {
        let value: JSONValue = ["name": "Zoë", "list": [1, 2, "three"]]
        #expect(value.jsonBytes == Array(value.jsonText.utf8))
    }

    @Test func writesAppendToAnArray() {
        var output: [UInt8] = Array("prefix:".utf8)
        JSONWriter.write(["a": [1, 2]], to: &output)
        output.append(0x0A)
        JSONWriter.write("second", to: &output)
        #expect(String(decoding: output, as: UTF8.self) == "prefix:{\"a\":[1,2]}\n\"second\"")
    }

    @Test func writeStringAppendsToAnArray() {
        var output: [UInt8] = [UInt8(ascii: "[")]
        JSONWriter.writeString("a\"b", to: &output)
        output.append(UInt8(ascii: "]"))
        #expect(String(decoding: output, as: UTF8.self) == #"["a\"b"]"#)
    }

    /// A `JSONOutput` that records how it was called, standing in for NIO's ByteBuffer.
    struct RecordingOutput: JSONOutput {
        var bytes: [UInt8] = []
        var bulkWrites = 0

        mutating func writeJSONByte(_ byte: UInt8) {
            bytes.append(byte)
        }

        mutating func writeJSONBytes(_ bytes: UnsafeRawBufferPointer) {
            self.bytes.append(contentsOf: bytes)
            bulkWrites += 1
        }
    }

    @Test func customOutputGetsTheSameBytes() {
        let value: JSONValue = ["id": 7, "tags": ["a", "b\n"], "ok": true]
        var output = RecordingOutput()
        JSONWriter.write(value, to: &output)
        #expect(output.bytes == value.jsonBytes)
    }

    @Test func largeValuesReachCustomOutputsInChunks() {
        let items = (0..<5_000).map { index -> JSONValue in
            ["id": .number(JSONNumber(index)), "name": .string("item \(index) with a longer name")]
        }
        let value = JSONValue.array(items)
        var output = RecordingOutput()
        JSONWriter.write(value, to: &output)
        #expect(output.bytes == value.jsonBytes)
        #expect(output.bytes.count > 200_000)
        #expect(output.bulkWrites > 1)
    }

    @Test func writeStringToCustomOutput() {
        var output = RecordingOutput()
        JSONWriter.writeString("tab\there \"quoted\" and done", to: &output)
        #expect(String(decoding: output.bytes, as: UTF8.self) == #""tab\there \"quoted\" and done""#)
    }

    @Test func deepValuesAreWrittenWithoutRecursion() throws {
        var value: JSONValue = "leaf"
        for _ in 0..<1_000 {
            value = .array([value])
        }
        let text = value.jsonText
        #expect(text == String(repeating: "[", count: 1_000) + "\"leaf\"" + String(repeating: "]", count: 1_000))
        #expect(try JSONParser.parse(text, maxDepth: 1_000) == value)
    }

    /// The bytes of `json` with the contents of strings (and their quotes) removed.
    static func bytesOutsideStrings(_ json: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else {
                result.append(byte)
            }
        }
        return result
    }
}

@Suite("Writer: pretty printing")
struct PrettyPrintTests {
    @Test func smallObject() {
        let value: JSONValue = [
            "name": "Widget",
            "price": .number(JSONNumber(literal: "9.50")!),
            "tags": ["a", "b"],
            "empty": [],
            "meta": [:],
            "owner": ["id": 1, "active": true, "note": nil],
        ]
        let expected = """
            {
              "name": "Widget",
              "price": 9.50,
              "tags": [
                "a",
                "b"
              ],
              "empty": [],
              "meta": {},
              "owner": {
                "id": 1,
                "active": true,
                "note": null
              }
            }
            """
        #expect(value.prettyPrinted() == expected)
    }

    @Test func customIndent() {
        let value: JSONValue = ["a": [1]]
        #expect(value.prettyPrinted(indent: 4) == "{\n    \"a\": [\n        1\n    ]\n}")
        #expect(value.prettyPrinted(indent: 0) == "{\n\"a\": [\n1\n]\n}")
    }

    @Test func scalarsAndEmptyContainers() {
        #expect(JSONValue.null.prettyPrinted() == "null")
        #expect(JSONValue.string("x\ny").prettyPrinted() == #""x\ny""#)
        #expect(JSONValue.array([]).prettyPrinted() == "[]")
        #expect(JSONValue.object(JSONObject()).prettyPrinted() == "{}")
        #expect(JSONValue.array([[], [:]]).prettyPrinted() == "[\n  [],\n  {}\n]")
    }

    @Test func prettyOutputParsesBack() throws {
        for text in RoundTripTests.corpus {
            let value = try JSONParser.parse(text)
            #expect(try JSONParser.parse(value.prettyPrinted()) == value)
        }
    }
}

@Suite("Writer: escaping at every position")
struct WriterPositionTests {
    /// The writer skips eight plain bytes at a time; a byte needing an escape must be caught at any position.
    @Test func specialBytesAreEscapedAtEveryPosition() throws {
        let filler = Array("abcdefghijklmnopqrstuvwx".utf8)
        let special = (UInt8(0x00)..<0x20).map { $0 } + [UInt8(ascii: "\""), UInt8(ascii: "\\")]
        for position in 0..<filler.count {
            for byte in special {
                var content = filler
                content[position] = byte
                let string = String(decoding: content, as: UTF8.self)
                let bytes = JSONValue.string(string).jsonBytes
                let escapeLength = [0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x22, 0x5C].contains(byte) ? 2 : 6
                #expect(bytes.count == 2 + content.count - 1 + escapeLength, "byte \(byte) at \(position)")
                #expect(!bytes.contains { $0 < 0x20 })
                #expect(try JSONParser.parse(bytes) == .string(string))
            }
        }
    }
}
