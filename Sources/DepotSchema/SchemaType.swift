import DepotJSON

/// A name the `type` keyword accepts.
///
/// `integer` is stricter than draft-07 here: it matches a number whose literal has neither a fraction nor an
/// exponent (`25`, `-3`, `12345678901234567890`), so `1.0` and `1e2` are not integers, though draft-07 would
/// accept them. Depot's ids and counts are written as integer literals and its server reads them that way
/// (`JSONNumber.isInteger`), so an instance the schema accepts is one the daemon accepts.
enum SchemaType: String, Sendable, CaseIterable {
    case null, boolean, object, array, number, integer, string

    func matches(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.number, .number), (.string, .string):
            true
        case (.integer, .number(let number)):
            number.isInteger
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
