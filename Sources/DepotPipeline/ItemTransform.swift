import DepotCore
import DepotJSON
import DepotOperators

/// A run of consecutive `filter` and `select` operators, applied to each item in one pass: the item is parsed
/// once, tested and projected in order, and encoded again only when a `select` changed it.
///
/// Each item's result is remembered by id with the bytes it was computed from, so a state whose items did not
/// change (a reload that brought the same list) parses none again; a removal from the last collection seen
/// is a removal from the last result, with no pass at all.
struct ItemTransform {
    enum Step {
        case filter(Predicate)
        case select(ItemProjection)
    }

    private struct Remembered {
        let input: [UInt8]
        let output: Item?
    }

    let steps: [Step]
    private var remembered: [String: Remembered] = [:]
    private var last = LastResult()

    init(steps: [Step]) {
        self.steps = steps
    }

    /// The items of `input` that pass, as the steps make them, in order.
    mutating func apply(_ input: ItemCollection) -> ItemCollection {
        if let output = last.repeated(input) { return output }
        if let removal = last.removal(input) {
            remembered[removal.id] = nil
            return removal.output
        }
        var next: [String: Remembered] = [:]
        next.reserveCapacity(input.count)
        var kept: [Item] = []
        for item in input.items {
            let result: Item?
            if let known = remembered[item.id], known.input == item.json {
                result = known.output
            } else {
                result = transform(item)
            }
            next[item.id] = Remembered(input: item.json, output: result)
            if let result { kept.append(result) }
        }
        remembered = next
        let output = ItemCollection(subset: kept)
        last.remember(input, output)
        return output
    }

    /// The item after the steps; nil when a filter drops it. An item that does not parse (never the case for
    /// items a source gave) matches no filter.
    private func transform(_ item: Item) -> Item? {
        guard var value = try? item.value else { return nil }
        var projected = false
        for step in steps {
            switch step {
            case .filter(let predicate):
                guard predicate.matches(value) else { return nil }
            case .select(let projection):
                value = projection.project(value)
                projected = true
            }
        }
        return projected ? Item(id: item.id, json: value.jsonBytes) : item
    }
}

extension ItemCollection {
    /// A collection of items taken from one whose ids are unique, so they are too.
    init(subset items: [Item]) {
        do {
            try self.init(items: items)
        } catch {
            preconditionFailure("a subset of a collection repeats an id: \(error)")
        }
    }
}
