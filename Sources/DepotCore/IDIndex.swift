/// Each item's order key in a collection's `KeyedTree`, found by the item's id: a second `KeyedTree`, keyed by the
/// id's hash, whose entries hold the ids with that hash and their order keys. Persistent like the list — setting
/// or removing an id copies one path — and built from a whole list at once by one sort of the hashes, several
/// times faster at a million ids than a million insertions into a hash trie (swift-collections' `TreeDictionary`,
/// which this replaced: its insertions were a third of start-up).
///
/// Hashes are Swift's, seeded for the process: the index lives only in memory.
struct IDIndex: Sendable {
    /// The ids with one hash: almost always one.
    enum Bucket: Sendable {
        case one(id: String, key: UInt64)
        case many([(id: String, key: UInt64)])

        func key(of id: String) -> UInt64? {
            switch self {
            case .one(let held, let key): held == id ? key : nil
            case .many(let entries): entries.first { $0.id == id }?.key
            }
        }

        var entries: [(id: String, key: UInt64)] {
            switch self {
            case .one(let id, let key): [(id, key)]
            case .many(let entries): entries
            }
        }

        init?(_ entries: [(id: String, key: UInt64)]) {
            switch entries.count {
            case 0: return nil
            case 1: self = .one(id: entries[0].id, key: entries[0].key)
            default: self = .many(entries)
            }
        }
    }

    /// A repeated id met while building: its position, and the position where it came first.
    struct Repeat: Error {
        let id: String
        let index: Int
        let firstIndex: Int
    }

    private let tree: KeyedTree<Bucket>
    /// Swift's hash of the id; tests give one with few values, so that ids share buckets.
    private let hash: @Sendable (String) -> UInt64

    init(hash: @escaping @Sendable (String) -> UInt64 = IDIndex.swiftHash) {
        tree = KeyedTree()
        self.hash = hash
    }

    private init(_ tree: KeyedTree<Bucket>, hash: @escaping @Sendable (String) -> UInt64) {
        self.tree = tree
        self.hash = hash
    }

    /// The index of `ids`, the id at offset `i` having the order key `keys(i)`. Throws the repeat that comes first
    /// in the list when an id repeats.
    init(ids: [String], keys: (Int) -> UInt64, hash: @escaping @Sendable (String) -> UInt64 = IDIndex.swiftHash) throws(Repeat) {
        self.hash = hash
        let byHash = Self.sortedByHash(ids.map(hash))
        var buckets: [Bucket] = []
        var hashes: [UInt64] = []
        buckets.reserveCapacity(byHash.count)
        hashes.reserveCapacity(byHash.count)
        var firstRepeat: Repeat?
        var start = 0
        while start < byHash.count {
            var end = start + 1
            while end < byHash.count, byHash[end].hash == byHash[start].hash { end += 1 }
            if end == start + 1 {
                buckets.append(.one(id: ids[byHash[start].index], key: keys(byHash[start].index)))
            } else {
                var entries: [(id: String, key: UInt64)] = []
                var firstIndexOf: [String: Int] = [:]
                // In list order within the hash (the sort keeps it), so the first of two equal ids is found first.
                for entry in byHash[start..<end] {
                    let id = ids[entry.index]
                    if let first = firstIndexOf[id] {
                        if firstRepeat.map({ entry.index < $0.index }) ?? true {
                            firstRepeat = Repeat(id: id, index: entry.index, firstIndex: first)
                        }
                        continue
                    }
                    firstIndexOf[id] = entry.index
                    entries.append((id, keys(entry.index)))
                }
                if let bucket = Bucket(entries) { buckets.append(bucket) }
            }
            hashes.append(byHash[start].hash)
            start = end
        }
        if let firstRepeat { throw firstRepeat }
        tree = KeyedTree(buckets, keys: { hashes[$0] })
    }

    /// The offsets of `hashes` in ascending order of hash, equal hashes in ascending offset: a counting sort on the
    /// top bits (stable, one pass to count and one to place), then each small run of equal top bits sorted by
    /// insertion. A comparison sort of a million hashes took a tenth of start-up.
    static func sortedByHash(_ hashes: [UInt64]) -> [(hash: UInt64, index: Int)] {
        guard hashes.count > 1 else { return hashes.indices.map { (hashes[$0], $0) } }
        // About four hashes a bucket, at most 2¹⁶ buckets.
        let bits = Swift.min(16, Swift.max(1, (Int.bitWidth - (hashes.count - 1).leadingZeroBitCount) - 2))
        let shift = UInt64(64 - bits)
        var starts = [Int](repeating: 0, count: (1 << bits) + 1)
        for hash in hashes {
            starts[Int(hash >> shift) + 1] += 1
        }
        for bucket in 1..<starts.count {
            starts[bucket] += starts[bucket - 1]
        }
        var sorted = [(hash: UInt64, index: Int)](repeating: (0, 0), count: hashes.count)
        var next = starts
        for index in hashes.indices {
            let bucket = Int(hashes[index] >> shift)
            sorted[next[bucket]] = (hashes[index], index)
            next[bucket] += 1
        }
        for bucket in 0..<(starts.count - 1) where starts[bucket + 1] - starts[bucket] > 1 {
            // Insertion sort by hash; placed in ascending offset, equal hashes keep that order.
            for position in (starts[bucket] + 1)..<starts[bucket + 1] {
                let entry = sorted[position]
                var hole = position
                while hole > starts[bucket], sorted[hole - 1].hash > entry.hash {
                    sorted[hole] = sorted[hole - 1]
                    hole -= 1
                }
                sorted[hole] = entry
            }
        }
        return sorted
    }

    subscript(id: String) -> UInt64? {
        tree.element(hash(id))?.key(of: id)
    }

    /// The index with `id` given the order key `key`, whether it had the id or not.
    func setting(_ id: String, to key: UInt64) -> IDIndex {
        let hashed = hash(id)
        guard let bucket = tree.element(hashed) else { return IDIndex(tree.inserting(.one(id: id, key: key), key: hashed), hash: hash) }
        let entries = bucket.entries.filter { $0.id != id } + [(id, key)]
        return IDIndex(tree.replacing(hashed, with: Bucket(entries) ?? .one(id: id, key: key)), hash: hash)
    }

    /// The index without `id`; this one when it has no such id.
    func removing(_ id: String) -> IDIndex {
        let hashed = hash(id)
        guard let bucket = tree.element(hashed), bucket.key(of: id) != nil else { return self }
        guard let rest = Bucket(bucket.entries.filter { $0.id != id }) else { return IDIndex(tree.removing(hashed), hash: hash) }
        return IDIndex(tree.replacing(hashed, with: rest), hash: hash)
    }

    @Sendable static func swiftHash(_ id: String) -> UInt64 {
        UInt64(bitPattern: Int64(id.hashValue))
    }
}
