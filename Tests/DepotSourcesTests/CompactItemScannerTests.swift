import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@testable import DepotSources

@Suite("CompactItemScanner: a compact file's items without a tree, exactly as the parser and writer give them")
struct CompactItemScannerTests {
    /// The items as the general path gives them: parsed into values, checked into a collection.
    static func general(_ text: String, idField: String = "id") throws -> [Item] {
        guard case .array(let values) = try JSONParser.parse(Array(text.utf8)) else { return [] }
        return Array(try ItemCollection(values: values, idField: idField).items)
    }

    /// A random compact value, ASCII, without escapes, of every JSON kind.
    static func randomValue(_ random: inout SplitMix64, depth: Int = 0) -> String {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
        case 0: return ["true", "false", "null"].randomElement(using: &random) ?? "null"
        case 1: return ["0", "-1", "25", "1.50", "1E+2", "-0.5e-3", "12345678901234567890", "90.0"].randomElement(using: &random) ?? "0"
        case 2, 3:
            let length = Int.random(in: 0...12, using: &random)
            let characters = (0..<length).map { _ -> Character in
                let byte = UInt8.random(in: 0x20...0x7E, using: &random)
                return byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") ? "/" : Character(UnicodeScalar(byte))
            }
            return "\"" + String(characters) + "\""
        case 5:
            let count = Int.random(in: 0...3, using: &random)
            return "[" + (0..<count).map { _ in randomValue(&random, depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let count = Int.random(in: 0...3, using: &random)
            return "{" + (0..<count).map { "\"k\($0)\":" + randomValue(&random, depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }

    @Test("random compact files: the same ids and the same bytes as parsing and writing back")
    func sameAsGeneralPath() throws {
        var random = SplitMix64(seed: 5)
        for round in 0..<300 {
            let count = Int.random(in: 0...20, using: &random)
            let items = (0..<count).map { index -> String in
                let id = Bool.random(using: &random) ? "\(index)" : "\"i\(round)-\(index)\""
                var members = ["\"id\":\(id)"] + (0..<Int.random(in: 0...4, using: &random)).map { "\"m\($0)\":" + Self.randomValue(&random) }
                members.shuffle(using: &random)
                return "{" + members.joined(separator: ",") + "}"
            }
            let separator = Bool.random(using: &random) ? ",\n" : ","
            let text = "[\n" + items.joined(separator: separator) + "\n]\n"
            let scanned = try #require(CompactItemScanner.items(in: Array(text.utf8), idField: "id"), "round \(round): \(text)")
            #expect(scanned == (try Self.general(text)), "round \(round)")
        }
    }

    @Test("the file FileSource writes is read by the scanner")
    func ownFormat() throws {
        let collection = try ItemCollection(
            values: [["id": 1, "name": "a", "n": .number(JSONNumber(literal: "1.50")!)], ["name": "b", "id": "x"]], idField: "id")
        let bytes = FileText.bytes(of: collection).bytes
        #expect(CompactItemScanner.items(in: bytes, idField: "id") == Array(collection.items))
    }

    @Test(
        "anything else is left to the general path",
        arguments: [
            #"[{"id": 1}]"#, #"[{"id":"a\"b"}]"#, #"[{"id":"é"}]"#, #"[{"id":"a","t":"tab\there"}]"#, #"[{"n":1}]"#, #"[{"id":1.5}]"#,
            #"[{"id":""}]"#, #"[{"id":true}]"#, #"[{"id":1},]"#, #"[{"id":01}]"#, #"[{"id":1,"x":tru}]"#, #"[{"id":1}"#, #"{"id":1}"#,
            #"[1]"#, "\u{FEFF}[{\"id\":1}]", #"[{"id":1}] x"#, #"[{"id":1,"a":[1,]}]"#, #"[{"id":1,"a":{"b"}}]"#,
            "[{\"id\":1,\"d\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}]",
        ])
    func generalPath(_ text: String) {
        #expect(CompactItemScanner.items(in: Array(text.utf8), idField: "id") == nil)
    }

    @Test("long strings are read 16 bytes at a time: a quote, an escape, a control or non-ASCII byte is found at any offset")
    func longStrings() throws {
        for length in 0...70 {
            let plain = String(repeating: "x", count: length)
            let text = #"[{"id":1,"note":"\#(plain)","n":2}]"#
            #expect(CompactItemScanner.items(in: Array(text.utf8), idField: "id") == (try Self.general(text)), "length \(length)")
            for offset in 0..<length {
                for special in [#"\""#, "\\u0041", "é", "\u{7F}", "\t"] {
                    var characters = Array(plain)
                    characters.replaceSubrange(offset...offset, with: Array(special))
                    let other = #"[{"id":1,"note":""# + String(characters) + #""}]"#
                    #expect(CompactItemScanner.items(in: Array(other.utf8), idField: "id") == nil, "\(special) at \(offset) of \(length)")
                }
            }
        }
    }

    @Test("repeated ids are the collection's to refuse; the last member of the id's name is the id, as parsed")
    func idsAsParsed() throws {
        let text = #"[{"id":"first","id":"second"},{"id":7}]"#
        let scanned = try #require(CompactItemScanner.items(in: Array(text.utf8), idField: "id"))
        #expect(scanned.map(\.id) == ["second", "7"])
        #expect(scanned == (try Self.general(text)))
        #expect(CompactItemScanner.items(in: Array(#"[{"id":1},{"id":1}]"#.utf8), idField: "id")?.count == 2)
        #expect(CompactItemScanner.items(in: Array("[]".utf8), idField: "id") == [])
    }
}
