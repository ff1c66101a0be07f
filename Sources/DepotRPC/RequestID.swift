public import DepotJSON

/// A request's id: a string, a number or null. Numbers keep their literal text, so the response
/// echoes exactly what the client sent (`1.50` stays `1.50`).
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case number(JSONNumber)
    case null

    /// The id a JSON value denotes; nil for types JSON-RPC does not allow as an id.
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .number(let number): self = .number(number)
        case .null: self = .null
        case .bool, .array, .object: return nil
        }
    }

    public var jsonValue: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .number(let number): .number(number)
        case .null: .null
        }
    }

    public var description: String { jsonValue.jsonText }
}
