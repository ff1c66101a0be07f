public import DepotJSON
import DepotPlatform

/// A `delta` as a client receives it (see `DeltaEncoder`), and how to apply it to the items of the success state
/// it is based on.
public struct WireDelta: Sendable, Equatable {
    /// The seq of the success state whose items it applies to.
    public var base: Int
    /// The item member that holds each item's id.
    public var idField: String
    public var removed: [String]
    public var changed: [JSONValue]
    public var added: [(index: Int, item: JSONValue)]

    public static func == (lhs: WireDelta, rhs: WireDelta) -> Bool {
        lhs.base == rhs.base && lhs.idField == rhs.idField && lhs.removed == rhs.removed && lhs.changed == rhs.changed
            && lhs.added.elementsEqual(rhs.added) { $0.index == $1.index && $0.item == $1.item }
    }

    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = value else {
            throw WireDecodingError("a delta must be an object, not \(value.typeName)")
        }
        let members = Members(object: object, of: "the delta")
        base = try members.nonNegativeInteger(DeltaMember.base)
        idField = try members.string(DeltaMember.idField)
        removed = try members.strings(DeltaMember.removed)
        changed = try members.objects(DeltaMember.changed)
        var added: [(index: Int, item: JSONValue)] = []
        for element in try members.objects(DeltaMember.added) {
            guard case .object(let addition) = element else { continue }
            let additionMembers = Members(object: addition, of: "an addition of the delta")
            let index = try additionMembers.nonNegativeInteger(DeltaMember.index)
            guard case .object? = addition[DeltaMember.item] else {
                throw WireDecodingError("an addition of the delta needs an \"\(DeltaMember.item)\" object")
            }
            added.append((index, addition[DeltaMember.item] ?? .null))
        }
        self.added = added
    }

    /// The id of `item` as deltas name it: a string as it is, an integer as its decimal text.
    public func id(of item: JSONValue) -> String? {
        switch item[idField] {
        case .string(let id): id
        case .number(let number) where number.isInteger: number.literal
        default: nil
        }
    }

    /// The items `base` becomes: drop `removed`, replace each `changed` item where it stands, insert each `added`
    /// item at its index, in order (`DeltaApplication.apply`). Throws when the delta does not fit `base` (it was computed
    /// for other items).
    public func applied(to base: [JSONValue]) throws(WireDecodingError) -> [JSONValue] {
        switch DeltaApplication.apply(removed: removed, changed: changed, added: added, to: base, id: id(of:)) {
        case .success(let items):
            return items
        case .failure(.removesAbsent):
            throw WireDecodingError("the delta removes ids that its base (seq \(self.base)) does not hold")
        case .failure(.changesAbsent):
            throw WireDecodingError("the delta changes an item its base (seq \(self.base)) does not hold")
        case .failure(.addsPastEnd(let index, let count)):
            throw WireDecodingError("the delta adds an item at index \(index), past the end of \(count) items")
        }
    }
}
