import Synchronization

/// A collection's index from id to position. Built when the collection is; for a collection made by removing
/// one item from another, derived from that one's index only when first looked up, so that the removal, which
/// is on the path to every subscriber, does not pay for it (at 100,000 items the derivation costs more than
/// everything else a removal does before its state goes out).
///
/// Each index has a token, unique in the process, and a derived one remembers its base's token and the id
/// removed: a fan-out can tell in O(1) that one collection is another minus one item, without holding the other.
final class ItemIndex: Sendable {
    private enum Positions {
        case built([String: Int])
        /// The base's positions, less `id` (at `position`); the base is released once these are built.
        case derived(base: ItemIndex, id: String, position: Int)
    }

    private static let nextToken = Atomic<UInt64>(1)

    let token: UInt64
    /// For an index derived by a removal: the base's token and the id removed.
    let removal: (baseToken: UInt64, id: String)?
    private let positions: Mutex<Positions>

    init(_ positions: [String: Int]) {
        token = Self.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        removal = nil
        self.positions = Mutex(.built(positions))
    }

    /// The index of `base`'s collection without `id`, which stands at `position`.
    init(removing id: String, at position: Int, from base: ItemIndex) {
        token = Self.nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        removal = (base.token, id)
        positions = Mutex(.derived(base: base, id: id, position: position))
    }

    subscript(id: String) -> Int? {
        positions.withLock { positions in
            switch positions {
            case .built(let built):
                return built[id]
            case .derived(let base, let removedID, let position):
                // The positions past the removed one move down by one; mapValues keeps the table's layout, so no
                // id is hashed again.
                var built = base.all.mapValues { $0 > position ? $0 - 1 : $0 }
                built.removeValue(forKey: removedID)
                positions = .built(built)
                return built[id]
            }
        }
    }

    /// Every id's position, built if it was not.
    private var all: [String: Int] {
        _ = self[""]
        return positions.withLock { positions in
            guard case .built(let built) = positions else { preconditionFailure("an index looked up is built") }
            return built
        }
    }
}
