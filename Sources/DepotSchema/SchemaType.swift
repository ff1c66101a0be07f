import DepotJSON

/// A name the `type` keyword accepts.
///
/// `integer` is stricter than draft-07 here: it matches a number whose literal has neither a fraction nor an
/// exponent (`25`, `-3`, `12345678901234567890`), so `1.0` and `1e2` are not integers, though draft-07 would
/// accept them. Depot's ids and counts are written as integer literals and its server reads them that way
/// (`JSONNumber.isInteger`), so an instance the schema accepts is one the daemon accepts.
enum SchemaType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, integer, string

    func matches(_ value: JSONValue, integers: IntegerRule = .literal) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.number, .number), (.string, .string):
            true
        case (.integer, .number(let number)):
            switch integers {
            case .literal: number.isInteger
            case .integralValue: number.isInteger || DecimalNumber(number).isIntegral
            }
        default:
            false
        }
    }

    /// "an integer", "a string", "null": how a message names the type after "must be".
    var phrase: String {
        switch self {
        case .null: "null"
        case .boolean: "a boolean"
        case .object: "an object"
        case .array: "an array"
        case .number: "a number"
        case .integer: "an integer"
        case .string: "a string"
        }
    }
}

/// The kinds of instance a keyword applies to: draft-07's keywords for numbers ignore strings, and so on.
enum InstanceKind: Sendable {
    case any, number, string, array, object

    func includes(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.any, _), (.number, .number), (.string, .string), (.array, .array), (.object, .object): true
        default: false
        }
    }
}

/// What the `integer` type accepts.
package enum IntegerRule: Sendable {
    /// A number written as an integer: no fraction, no exponent (`25`, not `25.0` or `2.5e1`). Depot's rule,
    /// the default: depotd reads ids and counts that way, so an instance the schema accepts is one depotd accepts.
    case literal
    /// Any number whose value is a whole number (`25`, `25.0`, `2.5e1`), as draft-07 says.
    case integralValue
}
