/// A JSON object's members in the order the text gave them. Lookups by key return the last member
/// with that key, as JavaScript and Python do; the members themselves are all kept.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    public init() {
        self.members = []
    }

    public init(_ members: [Member]) {
        self.members = members
    }

    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        self.members = pairs.map { Member(key: $0.0, value: $0.1) }
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// The keys in order, repeated keys included.
    public var keys: [String] { members.map(\.key) }

    /// The value of the last member named `key`. Setting replaces that member in place, or appends a new one;
    /// setting nil removes every member with that key. Names are compared code point for code point, as JSON's are
    /// (RFC 8259 §8.3), not by `String`'s canonical equivalence: `"é"` and `"e\u0301"` are two members.
    public subscript(key: String) -> JSONValue? {
        get {
            members.last(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value
        }
        set {
            guard let newValue else {
                members.removeAll(where: { $0.key.utf8.elementsEqual(key.utf8) })
                return
            }
            if let index = members.lastIndex(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                members[index].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public mutating func append(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
