import DepotCore
import DepotOperators

/// The last collection an item stage was given and what it gave back. For a stage that keeps each item or not
/// on its own merits (filter, select, sort), the result for that collection less one item is the last result
/// less that item: a removal costs no pass over the items.
struct LastResult {
    private var last: (input: ItemCollection, output: ItemCollection)?

    /// When `input` is the last input less one item: that item's id and the last output without it; the new pair
    /// is remembered. Nil otherwise.
    mutating func removal(_ input: ItemCollection) -> (id: String, output: ItemCollection)? {
        guard let last, let id = input.removedID(from: last.input) else { return nil }
        let output = last.output.removing(id: id)
        self.last = (input, output)
        return (id, output)
    }

    /// The last output, when `input` is the very collection last given (the same state, shaped twice).
    func repeated(_ input: ItemCollection) -> ItemCollection? {
        guard let last, input.isSameCollection(as: last.input) else { return nil }
        return last.output
    }

    mutating func remember(_ input: ItemCollection, _ output: ItemCollection) {
        last = (input, output)
    }
}
