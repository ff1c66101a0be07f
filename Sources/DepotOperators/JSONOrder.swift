public import DepotJSON

/// How pipelines order JSON values: `lt`…`ge` compare two numbers (by value, exactly) or two strings (by code
/// points); `sort` puts values of different types in a fixed order of types.
public enum JSONOrder {
    /// -1, 0 or 1 for two numbers or two strings; nil for any other pair (an order predicate is then false).
    public static func compareSameType(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)):
            if left.literal == right.literal { return 0 }
            let (a, b) = (DecimalNumber(left), DecimalNumber(right))
            return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let left), .string(let right)):
            // UTF-8 byte order is code point order.
            return left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : (left.utf8.elementsEqual(right.utf8) ? 0 : 1)
        default:
            return nil
        }
    }

    /// The order `sort` uses: numbers, then strings, then `false` and `true`, then null, then arrays and objects
    /// (which keep their order among themselves). -1, 0 or 1.
    public static func compareForSort(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        if let order = compareSameType(lhs, rhs) { return order }
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right { return left < right ? -1 : 1 }
        if case .bool(let a) = lhs, case .bool(let b) = rhs, a != b { return a ? 1 : -1 }
        return 0
    }

    private static func rank(_ value: JSONValue) -> Int {
        switch value {
        case .number: 0
        case .string: 1
        case .bool: 2
        case .null: 3
        case .array, .object: 4
        }
    }
}
