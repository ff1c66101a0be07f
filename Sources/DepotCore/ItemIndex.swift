import DepotPlatform
import Synchronization

/// A collection's index from id to position. Built when the collection is; for a collection made by removing
/// one item from another, built only when first looked up — from its base's positions when those are built
/// (shifting them, without hashing an id again), else from its own items — so that a removal, which is on the
/// path to every subscriber, does not pay for it: at 100,000 items the index costs more than everything else
/// a removal does before its state goes out.
///
/// Each index has a token, unique in the process, and a derived one remembers its base's token and the id
/// removed: a fan-out can tell in O(1) that one collection is another minus one item, without holding the other.
final class ItemIndex: Sendable {
    private enum Positions {
        case built([String: Int])
        /// The base's positions, less `id` (at `position`); the base is released once these are built.
        case derived(base: ItemIndex, id: String, position: Int)
        /// The base's positions with `edit` applied; the base is released once these are built.
        case edited(base: ItemIndex, edit: IndexEdit)
    }

    private static let nextToken = Atomic<UInt64>(1)

    let token: UInt64
    /// For an index derived by a removal: the base's token and the id removed.
    let removal: (baseToken: UInt64, id: String)?
    private let positions: Locked<Positions>

    init(_ positions: [String: Int]) {
        token = Self.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        removal = nil
        self.positions = Locked(.built(positions))
    }

    /// The index of `base`'s collection without `id`, which stands at `position`.
    init(removing id: String, at position: Int, from base: ItemIndex) {
        token = Self.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        removal = (base.token, id)
        positions = Locked(.derived(base: base, id: id, position: position))
    }

    /// The index of `base`'s collection after `edit` (changes from the source applied to it).
    init(editing base: ItemIndex, _ edit: IndexEdit) {
        token = Self.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        removal = nil
        positions = Locked(.edited(base: base, edit: edit))
    }

    /// The position of `id` among `items` (the collection's own items, from which an index not yet built is built).
    func position(of id: String, in items: [Item]) -> Int? {
        positions.withLock { positions in
            switch positions {
            case .built: break
            case .derived(let base, let removedID, let position):
                positions = .built(base.shifted(removing: removedID, at: position) ?? Self.build(items))
            case .edited(let base, let edit):
                positions = .built(base.edited(edit) ?? Self.build(items))
            }
            guard case .built(let built) = positions else { return nil }
            return built[id]
        }
    }

    /// Whether the positions are built (a lookup would not build them).
    var isBuilt: Bool {
        positions.withLock { positions in
            if case .built = positions { return true }
            return false
        }
    }

    /// This index's positions without `id` (at `position`), when they are built; nil otherwise.
    private func shifted(removing id: String, at position: Int) -> [String: Int]? {
        positions.withLock { positions in
            guard case .built(let built) = positions else { return nil }
            // mapValues keeps the table's layout: no id is hashed again.
            var shifted = built.mapValues { $0 > position ? $0 - 1 : $0 }
            shifted.removeValue(forKey: id)
            return shifted
        }
    }

    /// This index's positions after `edit`, when they are built; nil otherwise. Only the ids removed and added
    /// are hashed: the others keep their places in the table, with their positions moved.
    private func edited(_ edit: IndexEdit) -> [String: Int]? {
        positions.withLock { positions in
            guard case .built(let built) = positions else { return nil }
            var edited = edit.movesNothing ? built : built.mapValues(edit.newPosition(of:))
            for id in edit.removedIDs {
                edited.removeValue(forKey: id)
            }
            for (id, position) in edit.inserted {
                edited[id] = position
            }
            return edited
        }
    }

    private static func build(_ items: [Item]) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            positions[item.id] = index
        }
        return positions
    }
}

/// How a collection's positions move when items are removed and inserted: what `ItemIndex` needs to derive the
/// new collection's index from the old one's without hashing every id again.
struct IndexEdit: Sendable {
    /// Old positions of the items removed, ascending.
    var removedPositions: [Int] = []
    var removedIDs: [String] = []
    /// For each item inserted, the old position it went before (the old count: at the end), ascending.
    var insertionPoints: [Int] = []
    /// The ids inserted and their new positions.
    var inserted: [(id: String, position: Int)] = []

    /// No item moves: only replacements in place.
    var movesNothing: Bool { removedPositions.isEmpty && insertionPoints.isEmpty }

    /// Where the item at old position `old` is now: less the removals before it, plus the insertions before it.
    func newPosition(of old: Int) -> Int {
        old - Self.count(removedPositions, lessThan: old) + Self.count(insertionPoints, lessThan: old + 1)
    }

    /// How many of `sorted` are less than `value`.
    private static func count(_ sorted: [Int], lessThan value: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
