public import DepotJSON

/// A call's params, by name, with typed accessors whose errors name the param and what was wrong.
/// The dispatcher has already rejected names the method does not accept.
public struct Params: Sendable {
    public let method: String
    public let members: JSONObject

    init(method: String, members: JSONObject) {
        self.method = method
        self.members = members
    }

    /// Checks the shape of `params` for a method that accepts `accepted` names: absent, an object with only
    /// those names, or an empty array (the same as no params). Params by position are refused.
    init(method: String, params: JSONValue?, accepted: [String]) throws(RPCError) {
        switch params {
        case nil:
            self.init(method: method, members: JSONObject())
        case .array(let elements) where elements.isEmpty:
            self.init(method: method, members: JSONObject())
        case .array:
            guard !accepted.isEmpty else {
                throw .invalidParams("\(method) takes no params")
            }
            let example = "{\(accepted.map { "\"\($0)\": …" }.joined(separator: ", "))}"
            throw .invalidParams("\(method) takes params by name, not by position: send an object such as \(example)")
        case .object(let object):
            var seen: Set<String> = []
            let unknown = object.keys.filter { !accepted.contains($0) && seen.insert($0).inserted }
            guard unknown.isEmpty else {
                let names = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
                let allowed = accepted.isEmpty ? "takes no params" : "accepts \(accepted.joined(separator: ", "))"
                throw .invalidParams("unknown param\(unknown.count == 1 ? "" : "s") \(names); \(method) \(allowed)")
            }
            self.init(method: method, members: object)
        case .some(let other):
            throw .invalidParams("params must be an object, not \(other.typeName)")
        }
    }

    /// A required item id: a non-empty string, or an integer (given as its decimal text).
    public func itemID(_ name: String) throws(RPCError) -> String {
        switch members[name] {
        case nil:
            throw .invalidParams("\(method) needs \"\(name)\"")
        case .string(let id) where !id.isEmpty:
            return id
        case .number(let number) where number.isInteger:
            return number.literal
        case .some(let other):
            throw .invalidParams("\"\(name)\" must be a non-empty string or an integer, found \(Self.brief(other))")
        }
    }

    /// A required string.
    public func string(_ name: String) throws(RPCError) -> String {
        switch members[name] {
        case nil:
            throw .invalidParams("\(method) needs \"\(name)\"")
        case .string(let value):
            return value
        case .some(let other):
            throw .invalidParams("\"\(name)\" must be a string, found \(Self.brief(other))")
        }
    }

    /// An optional boolean.
    public func bool(_ name: String, default defaultValue: Bool) throws(RPCError) -> Bool {
        switch members[name] {
        case nil:
            return defaultValue
        case .bool(let value):
            return value
        case .some(let other):
            throw .invalidParams("\"\(name)\" must be true or false, found \(Self.brief(other))")
        }
    }

    /// An optional string that must be one of `choices` (an enum's raw values); nil when absent.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, of _: Choice.Type) throws(RPCError) -> Choice?
    where Choice.RawValue == String {
        guard let value = members[name] else { return nil }
        if case .string(let text) = value, let choice = Choice(rawValue: text) { return choice }
        let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        throw .invalidParams("\"\(name)\" must be one of \(allowed), found \(Self.brief(value))")
    }

    /// A wrong value as a message shows it: scalars as written (cut short), arrays and objects by their type.
    public static func brief(_ value: JSONValue) -> String {
        switch value {
        case .array: return "an array"
        case .object: return "an object"
        default:
            let text = value.jsonText
            return text.count > 40 ? String(text.prefix(39)) + "…" : text
        }
    }
}
