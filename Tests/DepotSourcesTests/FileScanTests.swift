import DepotCore
import DepotJSON
import Testing

@testable import DepotSources

/// The one-pass read of a file picks each item's id out of its bytes: what it accepts is what a collection built from
/// parsed values accepts, with the same text; anything else is left to the general path, which says what is wrong.
@Suite("FileScan: ids read from the bytes as a collection reads them")
struct FileScanTests {
    @Test("integers and non-empty strings are ids, as written; fractions, exponents and other values are not")
    func ids() async throws {
        for (literal, id) in [
            ("1", "1"), ("-3", "-3"), ("0", "0"), ("12345678901234567890", "12345678901234567890"), (#""a b""#, "a b"), (#""\u00e9""#, "é"),
        ] {
            let bytes = Array(#"[{"id": \#(literal), "n": 1}]"#.utf8)
            let scanned = try #require(FileScan.scan(bytes, idField: "id"), "\(literal)")
            #expect(scanned.items.item(id: id) != nil, "\(literal)")
            #expect(scanned.items == (try ItemCollection(values: [["id": try JSONParser.parse(literal), "n": 1]], idField: "id")), "\(literal)")
        }
        for literal in ["1.0", "1e2", "-2E1", "true", "null", "{}", "[]", #""""#] {
            #expect(FileScan.scan(Array(#"[{"id": \#(literal)}]"#.utf8), idField: "id") == nil, "\(literal) is left to the general path")
            #expect(throws: ItemCollectionError.self, "\(literal)") {
                try ItemCollection(values: [["id": try JSONParser.parse(literal)]], idField: "id")
            }
        }
    }
}
