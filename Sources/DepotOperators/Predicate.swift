public import DepotJSON

/// A test of one item, written as JSON: `{"field": POINTER, OP: VALUE}` or `{"all"|"any": [P…]}` / `{"not": P}`.
///
/// Comparisons follow JSON's types: a number never equals a string, numbers compare by value (`1e2` equals
/// `100`, exactly, without rounding through `Double`), strings by code points. A field that is missing (or that
/// the pointer cannot reach) matches nothing but `exists: false`, whatever the operator — so `ne` and `not`
/// differ: `{"field": "/x", "ne": 1}` is false for an item without `x`, `{"not": {"field": "/x", "eq": 1}}` true.
public indirect enum Predicate: Sendable, Hashable {
    /// `eq ne lt le gt ge`: the field compared with a value; the order ones on two numbers or two strings only.
    case compare(JSONPointer, Comparison, JSONValue)
    /// `in`: the field equals one of the values.
    case oneOf(JSONPointer, [JSONValue])
    /// `contains`: the field is a string containing this string, or an array with an element equal to this value.
    case contains(JSONPointer, JSONValue)
    /// `prefix`: the field is a string that starts with this one.
    case prefix(JSONPointer, String)
    /// `exists`: whether the pointer reaches a value (true) or not (false).
    case exists(JSONPointer, Bool)
    /// `all`: every predicate matches (true when there are none).
    case all([Predicate])
    /// `any`: at least one predicate matches (false when there are none).
    case any([Predicate])
    /// `not`: the predicate does not match.
    case not(Predicate)

    /// The comparison operators, by their names in JSON.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        case eq, ne, lt, le, gt, ge
    }

    /// Whether `item` (an item's parsed JSON) passes.
    public func matches(_ item: JSONValue) -> Bool {
        switch self {
        case .compare(let field, let comparison, let value):
            guard let found = field.resolve(in: item) else { return false }
            return Self.compare(found, comparison, value)
        case .oneOf(let field, let values):
            guard let found = field.resolve(in: item) else { return false }
            return values.contains { found.jsonEquals($0) }
        case .contains(let field, let value):
            switch (field.resolve(in: item), value) {
            case (.string(let text)?, .string(let part)):
                return part.isEmpty || Self.bytes(of: text, contain: part)
            case (.array(let elements)?, _):
                return elements.contains { $0.jsonEquals(value) }
            default:
                return false
            }
        case .prefix(let field, let start):
            guard case .string(let text)? = field.resolve(in: item) else { return false }
            return text.utf8.starts(with: start.utf8)
        case .exists(let field, let expected):
            return (field.resolve(in: item) != nil) == expected
        case .all(let predicates):
            return predicates.allSatisfy { $0.matches(item) }
        case .any(let predicates):
            return predicates.contains { $0.matches(item) }
        case .not(let predicate):
            return !predicate.matches(item)
        }
    }

    private static func compare(_ found: JSONValue, _ comparison: Comparison, _ value: JSONValue) -> Bool {
        switch comparison {
        case .eq: return found.jsonEquals(value)
        case .ne: return !found.jsonEquals(value)
        case .lt, .le, .gt, .ge:
            guard let order = JSONOrder.compareSameType(found, value) else { return false }
            switch comparison {
            case .lt: return order < 0
            case .le: return order <= 0
            case .gt: return order > 0
            default: return order >= 0
            }
        }
    }

    /// Substring search on UTF-8 bytes: code point for code point, as every other string test here.
    private static func bytes(of text: String, contain part: String) -> Bool {
        let haystack = Array(text.utf8), needle = Array(part.utf8)
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }
}
