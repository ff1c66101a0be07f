/// Why a list from a source cannot become the collection: it names the index or the id at fault,
/// so the user can find the bad element in their data.
public struct ItemCollectionError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// The element at `index` is not a JSON object; `found` is its JSON type.
        case notAnObject(index: Int, found: String)
        /// The element at `index` has no member named after the id field.
        case missingID(index: Int, idField: String)
        /// The id member at `index` is neither a string nor an integer; `found` describes it.
        case invalidID(index: Int, idField: String, found: String)
        /// Two elements share an id.
        case duplicateID(id: String, index: Int, firstIndex: Int)
    }

    public let problem: Problem

    public init(_ problem: Problem) {
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .notAnObject(let index, let found):
            "item at index \(index) is not a JSON object (found \(found))"
        case .missingID(let index, let idField):
            "item at index \(index) has no \"\(idField)\" member to use as its id (set --id-field if the id lives elsewhere)"
        case .invalidID(let index, let idField, let found):
            "item at index \(index) has an unusable \"\(idField)\": \(found); ids must be non-empty strings or integers"
        case .duplicateID(let id, let index, let firstIndex):
            "duplicate id \"\(id)\": items at index \(firstIndex) and \(index) both have it"
        }
    }
}
