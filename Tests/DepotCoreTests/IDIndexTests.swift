import DepotTestSupport
import Testing

@testable import DepotCore

@Suite("IDIndex: ids to order keys, against a dictionary")
struct IDIndexTests {
    /// A hash with three values, so that most ids share a bucket with others; and Swift's own.
    static let hashes: [(name: String, hash: @Sendable (String) -> UInt64)] = [
        ("three buckets", { UInt64($0.utf8.reduce(0) { $0 &+ Int($1) } % 3) }), ("Swift's", IDIndex.swiftHash),
    ]

    @Test("built at once, then random settings and removals: every id's key is the dictionary's, older versions unchanged", arguments: [0, 1])
    func randomOperations(hashChoice: Int) throws {
        let hash = Self.hashes[hashChoice].hash
        var random = SplitMix64(seed: 0x1D_1DE7)
        let ids = (0..<500).map { "id\($0)" }
        var index = try IDIndex(ids: ids, keys: { UInt64($0) * 10 }, hash: hash)
        var model = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, UInt64($0) * 10) })
        var versions: [(IDIndex, [String: UInt64])] = []
        for step in 0..<2_000 {
            let id = "id\(Int.random(in: 0..<700, using: &random))"
            if Bool.random(using: &random) {
                index = index.setting(id, to: UInt64(step))
                model[id] = UInt64(step)
            } else {
                index = index.removing(id)
                model[id] = nil
            }
            if step % 250 == 0 { versions.append((index, model)) }
        }
        for (version, expected) in versions + [(index, model)] {
            // Every id the test ever set is looked up, so an id the index kept too long shows as well as one it lost.
            for number in 0..<700 {
                let id = "id\(number)"
                #expect(version[id] == expected[id], "\(id)")
            }
        }
    }

    @Test("a repeated id fails building with the first repeat in list order, whatever the buckets", arguments: [0, 1])
    func repeats(hashChoice: Int) {
        let ids = ["a", "b", "c", "b", "a", "c"]
        #expect {
            try IDIndex(ids: ids, keys: { UInt64($0) }, hash: Self.hashes[hashChoice].hash)
        } throws: { error in
            guard let repeated = error as? IDIndex.Repeat else { return false }
            return repeated.id == "b" && repeated.index == 3 && repeated.firstIndex == 1
        }
    }

    @Test("hashes sorted by the counting sort are the comparison sort's order, equal hashes in offset order", arguments: [0, 1, 2, 7, 100, 5_000])
    func sortedByHash(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 11)
        // Some hashes repeat, and many share their top bits.
        let hashes = (0..<count).map { _ in Bool.random(using: &random) ? UInt64.random(in: 0..<50, using: &random) << 58 : random.next() }
        let expected = hashes.indices.map { (hashes[$0], $0) }.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        let sorted = IDIndex.sortedByHash(hashes)
        #expect(sorted.map(\.hash) == expected.map(\.0))
        #expect(sorted.map(\.index) == expected.map(\.1))
    }
}
