import DepotJSON
import DepotTestSupport
import Testing

@Suite("Round trips")
struct RoundTripTests {
    /// Documents in compact form, so writing what was parsed must give back the same text.
    static let corpus: [String] = [
        "null", "true", "false", "0", "-0", "1.50", "1e400", "-12345678901234567890", "\"\"", "[]", "{}",
        #""plain""#,
        #""esc \" \\ \n \r \t \b \f \u0001 \u001f end""#,
        "\"ünïcödé 日本 😀 \u{7F}\"",
        #"[1,2,3,"four",null,true,false,[],{}]"#,
        #"{"a":1,"b":2,"a":3}"#,
        #"{"zebra":{"apple":[{"x":-0.5e-7},{"y":"z"}]},"":"empty key","k":""}"#,
        #"{"jsonrpc":"2.0","id":12345678901234567890,"method":"items.get","params":{"id":"abc","fields":["name","price"]}}"#,
        #"[[[[[[[[[[["deep"]]]]]]]]]]]"#,
        #"{"text":"line one\nline two\ttabbed \"quoted\" back\\slash and a \u0000 nul"}"#,
    ]

    @Test("compact text is reproduced exactly", arguments: corpus)
    func compactTextIsReproduced(text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(value.jsonText == text)
        #expect(try JSONParser.parse(value.jsonBytes) == value)
    }

    @Test func whitespaceAndEscapesAreNormalized() throws {
        let value = try JSONParser.parse(" { \"a\\u0062\" : [ 1 , \"\\/\\u00e9\\ud83d\\ude00\" ] } ")
        #expect(value.jsonText == #"{"ab":[1,"/é😀"]}"#)
    }

    @Test func randomValuesSurviveARoundTrip() throws {
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let text = value.jsonText
            #expect(try JSONParser.parse(text) == value, "\(text)")
            #expect(try JSONParser.parse(value.prettyPrinted(indent: 3)) == value)
        }
    }

    static let sampleScalars: [Unicode.Scalar] = [
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "ß", "日", "€",
        "\u{FEFF}", "\u{FFFF}", "😀", "\u{10FFFF}", "\u{2028}",
    ]

    static let sampleNumbers = ["0", "-0", "1", "-1", "0.5", "1e400", "1E+2", "-3.25e-10", "12345678901234567890", "1.50"]

    static func randomString(using generator: inout SplitMix64) -> String {
        let length = Int(generator.next() % 24)
        var string = ""
        for _ in 0..<length {
            string.unicodeScalars.append(sampleScalars[Int(generator.next() % UInt64(sampleScalars.count))])
        }
        return string
    }

    static func randomValue(depth: Int, using generator: inout SplitMix64) -> JSONValue {
        let choice = generator.next() % (depth < 5 ? 7 : 5)
        switch choice {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2: return number(sampleNumbers[Int(generator.next() % UInt64(sampleNumbers.count))])
        case 3, 4: return .string(randomString(using: &generator))
        case 5:
            let count = Int(generator.next() % 6)
            return .array((0..<count).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            let count = Int(generator.next() % 6)
            var object = JSONObject()
            for _ in 0..<count {
                // Short keys from a small alphabet, so duplicates happen.
                let key = generator.next() % 4 == 0 ? "dup" : randomString(using: &generator)
                object.append(key: key, value: randomValue(depth: depth + 1, using: &generator))
            }
            return .object(object)
        }
    }
}
