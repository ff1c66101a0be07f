/// A JSON Pointer (RFC 6901): the reference tokens that lead from a value to one of its members or elements.
/// Schema violations use it for where in the instance they are, `$ref` for where in the document a schema is,
/// and pipelines for the item members they read.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// Unescaped tokens: member names as they are, element indices as decimal text.
    public private(set) var tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Pointers are equal when their tokens are the same code points (RFC 6901 compares member names so), not when
    /// `String` finds them canonically equivalent: `/é` and `/e\u{301}` name two members.
    public static func == (left: JSONPointer, right: JSONPointer) -> Bool {
        left.tokens.count == right.tokens.count && left.isPrefix(of: right)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(tokens.count)
        for token in tokens {
            hasher.combine(token.utf8.count)
            for byte in token.utf8 { hasher.combine(byte) }
        }
    }

    /// Whether `other` starts with this pointer's tokens (code point for code point): it leads to this pointer's value
    /// or into it.
    public func isPrefix(of other: JSONPointer) -> Bool {
        tokens.count <= other.tokens.count && zip(tokens, other.tokens).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    /// Parses `/a/b~1c/0` (the empty string is the root); nil when a token has a `~` not followed by 0 or 1,
    /// or the text is not empty and does not start with `/`.
    public init?(parsing text: some StringProtocol) {
        if text.isEmpty {
            self.init(tokens: [])
            return
        }
        guard text.first == "/" else { return nil }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let token = Self.unescape(raw) else { return nil }
            tokens.append(token)
        }
        self.init(tokens: tokens)
    }

    public func appending(_ token: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(token)
        return copy
    }

    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// `/items/3/id`, with `~` written `~0` and `/` written `~1`; "" for the root.
    public var description: String {
        tokens.map { "/" + Self.escape($0) }.joined()
    }

    /// The value this pointer leads to inside `document`, or nil when a token names no member or element.
    /// An array token must be a decimal index without leading zeros, as RFC 6901 requires.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let member = object.member(named: token) else { return nil }
                current = member
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    public static func escape(_ token: String) -> String {
        guard token.contains(where: { $0 == "~" || $0 == "/" }) else { return token }
        return token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// `~1` becomes `/` and `~0` becomes `~` (in that order of meaning: `~01` is `~1`); nil for any other `~`.
    private static func unescape(_ raw: some StringProtocol) -> String? {
        guard raw.contains("~") else { return String(raw) }
        var result = ""
        var iterator = raw.makeIterator()
        while let character = iterator.next() {
            guard character == "~" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "0": result.append("~")
            case "1": result.append("/")
            default: return nil
            }
        }
        return result
    }

    private static func arrayIndex(_ token: String) -> Int? {
        guard let first = token.utf8.first, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            first != UInt8(ascii: "0") || token.utf8.count == 1
        else { return nil }
        return Int(token)
    }
}

extension JSONObject {
    /// The value of the last member whose name is `name` code point for code point. (`String`'s `==` would
    /// also match a differently normalised name, which JSON Schema and JSON Pointer do not.)
    public func member(named name: String) -> JSONValue? {
        members.last(where: { $0.key.utf8.elementsEqual(name.utf8) })?.value
    }

    /// The members that count, in order: for a repeated name only the last one, which is the one lookups see.
    public var effectiveMembers: [Member] {
        guard members.count > 1 else { return members }
        var seen: Set<[UInt8]> = []
        var result: [Member] = []
        for member in members.reversed() where seen.insert(Array(member.key.utf8)).inserted {
            result.append(member)
        }
        return result.reversed()
    }
}
