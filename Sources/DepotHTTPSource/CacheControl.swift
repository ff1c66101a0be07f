/// The directives of a response's `Cache-Control` fields (RFC 9111 §5.2): names compared ignoring case, each with
/// its argument when it has one (a token or a quoted string). Several fields are one list, in order.
struct CacheControl: Sendable, Equatable {
    /// Each directive's name in lowercase, with its argument; the first of a name that appears twice wins, as
    /// RFC 9111 lets a cache choose.
    private(set) var directives: [(name: String, argument: String?)] = []

    init(fields: [String]) {
        for field in fields {
            for part in Self.split(field) {
                let (name, argument) = Self.directive(part)
                guard !name.isEmpty, !directives.contains(where: { $0.name == name }) else { continue }
                directives.append((name, argument))
            }
        }
    }

    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// A delta-seconds argument (`max-age=60`); nil when the directive is absent or its argument is not a
    /// non-negative integer. A value too large to hold is taken as the largest (RFC 9111 §1.2.2).
    func seconds(_ name: String) -> Int64? {
        guard let argument = directives.first(where: { $0.name == name })?.argument, !argument.isEmpty,
            argument.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(argument) ?? Int64(Int32.max)
    }

    static func == (lhs: CacheControl, rhs: CacheControl) -> Bool {
        lhs.directives.elementsEqual(rhs.directives) { $0.name == $1.name && $0.argument == $1.argument }
    }

    /// The field's directives, split at commas outside quoted strings.
    private static func split(_ field: String) -> [Substring] {
        var parts: [Substring] = []
        var start = field.startIndex
        var quoted = false
        var escaped = false
        for index in field.indices {
            let character = field[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                parts.append(field[start..<index])
                start = field.index(after: index)
            }
        }
        parts.append(field[start...])
        return parts
    }

    /// `name` or `name=argument`, blanks around them dropped, a quoted argument unquoted.
    private static func directive(_ part: Substring) -> (String, String?) {
        let trimmed = part.trimmingOptionalWhitespace()
        guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed.lowercased(), nil) }
        let name = trimmed[..<equals].trimmingOptionalWhitespace().lowercased()
        let argument = trimmed[trimmed.index(after: equals)...].trimmingOptionalWhitespace()
        guard argument.count >= 2, argument.first == "\"", argument.last == "\"" else { return (name, String(argument)) }
        var unquoted = ""
        var escaped = false
        for character in argument.dropFirst().dropLast() {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            unquoted.append(character)
        }
        return (name, unquoted)
    }
}
