import DepotCore
import DepotJSON
import DepotOperators

/// `sort`: the items ordered by one member, stably; items without it come last, in their order. Each item's
/// key is read once and remembered with the bytes it was read from; a removal from the last collection seen
/// is a removal from the last result.
struct ItemSort {
    let field: JSONPointer
    let descending: Bool
    private var keys: [String: (input: [UInt8], key: JSONValue?)] = [:]
    private var last = LastResult()

    init(field: JSONPointer, descending: Bool) {
        self.field = field
        self.descending = descending
    }

    mutating func apply(_ input: ItemCollection) -> ItemCollection {
        if let output = last.repeated(input) { return output }
        if let removal = last.removal(input) {
            keys[removal.id] = nil
            return removal.output
        }
        var next: [String: (input: [UInt8], key: JSONValue?)] = [:]
        next.reserveCapacity(input.count)
        var keyed: [(key: JSONValue?, item: Item)] = []
        keyed.reserveCapacity(input.count)
        for item in input.items {
            let key: JSONValue?
            if let known = keys[item.id], known.input == item.json {
                key = known.key
            } else {
                key = (try? item.value).flatMap { field.resolve(in: $0) }
            }
            next[item.id] = (item.json, key)
            keyed.append((key, item))
        }
        keys = next
        let descending = descending
        // Swift's sort is not stable; the original position breaks ties.
        let order = keyed.indices.sorted { a, b in
            switch (keyed[a].key, keyed[b].key) {
            case (nil, nil): return a < b
            case (nil, _): return false
            case (_, nil): return true
            case (let left?, let right?):
                let order = JSONOrder.compareForSort(left, right)
                return order == 0 ? a < b : (descending ? order > 0 : order < 0)
            }
        }
        let output = ItemCollection(subset: order.map { keyed[$0].item })
        last.remember(input, output)
        return output
    }
}
