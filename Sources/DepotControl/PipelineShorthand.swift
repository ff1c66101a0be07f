import DepotJSON

/// depotctl's short syntax for the common operators, compiled to the same JSON operators the daemon takes:
/// `--where '/type == "fire"'`, `--select /name,/hp`, `--sort /hp:desc`, `--throttle 1s`.
enum PipelineShorthand {
    /// Why a piece of short syntax cannot be compiled, for a usage error.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The tests `--where` takes, with the predicate test each stands for.
    static let tests: [(word: String, test: String)] = [
        ("==", "eq"), ("!=", "ne"), ("<=", "le"), (">=", "ge"), ("<", "lt"), (">", "gt"),
        ("in", "in"), ("contains", "contains"), ("prefix", "prefix"),
    ]

    /// `POINTER TEST VALUE` (`/type == "fire"`, `/hp >= 50`, `/tags contains "cute"`, `/type in ["fire","water"]`),
    /// or `POINTER exists` / `POINTER missing`. VALUE is JSON; a bare word that is not JSON is taken as a string
    /// (`/type == fire`).
    static func predicate(_ text: String) throws(Problem) -> JSONValue {
        let trimmed = text.trimmingBlanks
        guard let space = trimmed.firstIndex(of: " ") else {
            throw Problem(description: "--where \"\(text)\": write POINTER TEST VALUE, such as '/type == \"fire\"' or '/hp >= 50'")
        }
        let field = String(trimmed[..<space])
        guard field.hasPrefix("/") || field.isEmpty else {
            throw Problem(description: "--where \"\(text)\": \"\(field)\" is not a JSON Pointer; write /\(field)")
        }
        let rest = trimmed[space...].trimmingBlanks
        if rest == "exists" || rest == "missing" {
            return .object(JSONObject([("field", .string(field)), ("exists", .bool(rest == "exists"))]))
        }
        guard let (word, test) = tests.first(where: { rest.hasPrefix($0.word + " ") || rest.hasPrefix($0.word + "\"") }) else {
            let words = tests.map(\.word).joined(separator: " ")
            throw Problem(description: "--where \"\(text)\": the test is one of \(words), exists, missing")
        }
        let valueText = rest.dropFirst(word.count).trimmingBlanks
        let value = (try? JSONParser.parse(Array(valueText.utf8))) ?? .string(valueText)
        return .object(JSONObject([("field", .string(field)), (test, value)]))
    }

    /// Seconds from `1.5`, `500ms`, `2s`, `1m`.
    static func seconds(_ text: String, option: String) throws(Problem) -> JSONValue {
        guard let seconds = DurationText.seconds(text) else {
            throw Problem(description: "\(option) \"\(text)\": write a duration such as 500ms, 2s or 1m")
        }
        let literal = seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)
        return .number(JSONNumber(literal: literal) ?? JSONNumber(1))
    }
}

extension StringProtocol {
    /// Without the spaces and tabs (Unicode's blanks, not line breaks) at either end.
    var trimmingBlanks: String {
        let isBlank: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
