import DepotJSON
import DepotTestSupport
import Testing

/// The array scanner against the parser: for any array, laid out any way, each element's compact bytes are those the
/// parser and the writer give, its span holds it, and the member asked for is picked out; what the parser refuses,
/// the scanner refuses.
@Suite("JSONArrayScanner: elements in compact form, where they stand, as the parser reads them")
struct JSONArrayScannerTests {
    /// Random JSON text of every kind — escapes, non-ASCII, U+2028, numbers as written — with random whitespace.
    struct Writer {
        var random: SplitMix64

        mutating func space() -> String {
            let choices = ["", "", " ", "\n", "\n  ", "\t", "\r\n    "]
            return choices[Int.random(in: 0..<choices.count, using: &random)]
        }

        mutating func string() -> String {
            let pieces = [
                "a", "Zz", "é", "Nidoran♀", "✓", "😀", #"\""#, #"\\"#, #"\/"#, #"\n"#, #"\t"#, #"\u0041"#, #"\u00e9"#, #"\u2028"#, "\u{2029}",
                #"\ud83d\ude00"#, #"\u001f"#, " ", "~", "0",
            ]
            let count = Int.random(in: 0...5, using: &random)
            return "\"" + (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined() + "\""
        }

        mutating func value(depth: Int = 0) -> String {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 7), using: &random) {
            case 0: return ["true", "false", "null"][Int.random(in: 0..<3, using: &random)]
            case 1: return ["0", "-1", "25", "1.50", "1E+2", "-0.5e-3", "12345678901234567890", "90.0"][Int.random(in: 0..<8, using: &random)]
            case 2, 3: return string()
            case 4:
                let count = Int.random(in: 0...3, using: &random)
                return "[" + space() + (0..<count).map { _ in value(depth: depth + 1) }.joined(separator: space() + "," + space()) + space() + "]"
            default: return object(depth: depth)
            }
        }

        mutating func object(depth: Int, id: String? = nil) -> String {
            var members = (0..<Int.random(in: 0...3, using: &random)).map { _ in string() + space() + ":" + space() + value(depth: depth + 1) }
            if let id { members.insert(#""id""# + space() + ":" + space() + id, at: Int.random(in: 0...members.count, using: &random)) }
            return "{" + space() + members.joined(separator: space() + "," + space()) + space() + "}"
        }
    }

    @Test("random arrays, laid out at random: each element as the parser and writer give it, its span, its id member")
    func sameAsTheParser() throws {
        var writer = Writer(random: SplitMix64(seed: 17))
        for round in 0..<1500 {
            let count = Int.random(in: 0...6, using: &writer.random)
            let elements = (0..<count).map { index in
                Int.random(in: 0..<5, using: &writer.random) == 0 ? writer.value() : writer.object(depth: 1, id: "\"i\(index)\"")
            }
            let text =
                writer.space() + "[" + writer.space() + elements.joined(separator: writer.space() + "," + writer.space()) + writer.space() + "]"
                + writer.space()
            let bytes = Array(text.utf8)
            guard case .array(let parsed) = try JSONParser.parse(bytes) else { return #expect(Bool(false), "not an array") }
            var scanned: [JSONArrayScanner.Element] = []
            let bounds = try bytes.withUnsafeBytes { buffer in
                try JSONArrayScanner.scan(buffer, capturing: "id") { element in
                    scanned.append(element)
                    return true
                }
            }
            #expect(bounds != nil)
            #expect(scanned.count == parsed.count, "round \(round)")
            for (element, value) in zip(scanned, parsed) {
                #expect(element.compact == value.jsonBytes, "round \(round): \(text)")
                #expect(try JSONParser.parse(Array(bytes[element.span])) == value, "round \(round): the span holds the element")
                #expect(element.isObject == (value.objectValue != nil))
                let captured = element.captured.map { try? JSONParser.parse(Array(element.compact[$0])) }
                #expect(captured == value["id"].map { .some($0) }, "round \(round)")
            }
        }
    }

    @Test("what the parser refuses, the scanner refuses at the same place; a value that is not an array is nil")
    func refusals() throws {
        for text in ["[1,]", "[1 2]", #"["\x"]"#, "[01]", #"[{"a" 1}]"#, "[", "[1]x", #"["\ud800"]"#, "[\"\u{1}\"]", "  "] {
            let bytes = Array(text.utf8)
            let parserError = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
            let scannerError = #expect(throws: JSONParseError.self) {
                try bytes.withUnsafeBytes { buffer in try JSONArrayScanner.scan(buffer, capturing: "id") { _ in true } }
            }
            #expect(scannerError == parserError, "\(text)")
        }
        let object = Array(#"{"id": 1}"#.utf8)
        #expect(try object.withUnsafeBytes { buffer in try JSONArrayScanner.scan(buffer, capturing: "id") { _ in true } } == nil)
    }

    @Test("the bounds are the offsets after [ and of ]")
    func bounds() throws {
        let bytes = Array("\u{FEFF} [ {\"id\":1} ]\n".utf8)
        let bounds = try bytes.withUnsafeBytes { buffer in try JSONArrayScanner.scan(buffer, capturing: "id") { _ in true } }
        #expect(bounds?.contentStart == 5 && bounds?.contentEnd == 15)
    }
}
