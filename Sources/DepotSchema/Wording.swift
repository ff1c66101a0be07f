import DepotJSON

/// How messages show values and lists, so every violation reads the same way.
enum Wording {
    /// Strings, numbers and literals longer than this are cut, so one bad value cannot flood a message.
    static let maxValueLength = 40

    /// A found value with its type: `string "x"`, `number 1.5`, `boolean true`, `null`, `an array`, `an object`.
    static func brief(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean \(value.jsonText)"
        case .number: "number \(cut(value.jsonText))"
        case .string: "string \(cut(value.jsonText))"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A found value alone, for messages that already say what was expected: `"x"`, `1.5`, `true`, `an array`.
    static func found(_ value: JSONValue) -> String {
        switch value {
        case .array: "an array"
        case .object: "an object"
        default: cut(value.jsonText)
        }
    }

    /// An expected value as compact JSON, cut when long: `"success"`, `[1,2]`.
    static func expected(_ value: JSONValue) -> String {
        cut(value.jsonText, limit: 2 * maxValueLength)
    }

    /// `name` as a JSON string literal, never cut: member names must be exact.
    static func quote(_ name: String) -> String {
        JSONValue.string(name).jsonText
    }

    /// "a", "a or b", "a, b or c".
    static func alternatives(_ phrases: [String], conjunction: String = "or") -> String {
        guard phrases.count > 1, let last = phrases.last else { return phrases.first ?? "" }
        return phrases.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// "1 element", "3 elements".
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    private static func cut(_ text: String, limit: Int = maxValueLength) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
