public import DepotCore
public import Foundation

/// The self-checking lists of the cache crash test. Generation g has `count(g)` items, every one tagged g and
/// numbered, with a fetch time and an ETag derived from g, so a list read back after a kill can be checked
/// whole: one generation, every item, in order, byte for byte, with its own metadata.
public enum CacheGeneration {
    /// How many items generation `generation` has: 1 to 4,000, varying, so some saves take a while.
    public static func count(_ generation: Int) -> Int {
        1 + (generation &* 7919) % 4000
    }

    public static func itemID(_ generation: Int, _ index: Int) -> String {
        "g\(generation)-\(index)"
    }

    /// The writer removes the first item after saving every fourth generation.
    public static func removesFirstItem(_ generation: Int) -> Bool {
        generation % 4 == 0
    }

    public static func fetchedAt(_ generation: Int) -> Date {
        Date(timeIntervalSince1970: 1_700_000_000 + Double(generation))
    }

    public static func etag(_ generation: Int) -> String {
        "\"generation-\(generation)\""
    }

    public static func lastModified(_ generation: Int) -> String {
        "generation \(generation)"
    }

    /// The generation an ETag names; nil for anything else.
    public static func generation(fromETag etag: String?) -> Int? {
        guard let etag, etag.hasPrefix("\"generation-"), etag.hasSuffix("\"") else { return nil }
        return Int(etag.dropFirst("\"generation-".count).dropLast())
    }

    /// The items of `generation`, about 200 bytes each.
    public static func items(_ generation: Int) -> ItemCollection {
        let count = count(generation)
        let items = (0..<count).map { index in
            let head = #"{"id":"\#(itemID(generation, index))","generation":\#(generation),"index":\#(index),"of":\#(count),"pad":""#
            let pad = String(repeating: "x", count: max(0, 198 - head.utf8.count))
            return Item(id: itemID(generation, index), json: Array((head + pad + "\"}").utf8))
        }
        return try! ItemCollection(items: items)  // ids are unique by construction
    }

    /// What is wrong with a list read back as generation `generation` (empty when it is whole): it must be
    /// that generation's items, or them without the first when the writer removes it, with that
    /// generation's fetch time and validators.
    public static func problems(
        generation: Int,
        items: [Item],
        fetchedAt: Date,
        lastModified: String?
    ) -> [String] {
        var problems: [String] = []
        let expected = Array(self.items(generation).items)
        if items != expected && !(removesFirstItem(generation) && items[...] == expected.dropFirst()) {
            let foreign = items.filter { !$0.id.hasPrefix("g\(generation)-") }.count
            problems.append(
                "generation \(generation): \(items.count) items (expected \(expected.count)"
                    + (removesFirstItem(generation) ? " or \(expected.count - 1)" : "")
                    + "), \(foreign) from other generations, or bytes or order differ"
            )
        }
        if fetchedAt != self.fetchedAt(generation) {
            problems.append("generation \(generation): fetchedAt \(fetchedAt), expected \(self.fetchedAt(generation))")
        }
        if lastModified != self.lastModified(generation) {
            problems.append("generation \(generation): lastModified \(lastModified ?? "nil")")
        }
        return problems
    }
}
