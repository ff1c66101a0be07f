extension JSONValue {
    /// Equality of JSON values, as JSON Schema defines it for `const`, `enum` and `uniqueItems` and pipelines'
    /// predicates use it: numbers by value (`1 == 1.0 ==
    /// 1e0`), strings code point for code point (no Unicode normalisation), arrays element by element, objects
    /// by their members whatever the order (for a repeated name, the last member counts).
    public func jsonEquals(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            return left.literal == right.literal || DecimalNumber(left) == DecimalNumber(right)
        case (.string(let left), .string(let right)):
            return left.utf8.elementsEqual(right.utf8)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.jsonEquals($1) }
        case (.object(let left), .object(let right)):
            let leftMembers = left.effectiveMembers
            guard leftMembers.count == right.effectiveMembers.count else { return false }
            return leftMembers.allSatisfy { member in
                right.member(named: member.key).map { member.value.jsonEquals($0) } ?? false
            }
        default:
            return false
        }
    }
}
