public import DepotJSON

/// Checks the items a write would leave, before anything is sent to the source (depotd's item schema, `--item-schema`):
/// every violation, so a client fixes them all at once.
public protocol ItemValidator: Sendable {
    /// Every way `item` breaks the rules; empty when it keeps them.
    func violations(of item: JSONValue) -> [ItemViolation]
}

/// One way an item breaks its schema: where (a JSON Pointer into the item), which rule (the schema's keyword), and why.
public struct ItemViolation: Sendable, Equatable, CustomStringConvertible {
    /// `/tags/0`, "" for the item itself.
    public let pointer: String
    /// The schema keyword that failed: `type`, `required`, `maxLength`…
    public let keyword: String
    public let message: String

    public init(pointer: String, keyword: String, message: String) {
        self.pointer = pointer
        self.keyword = keyword
        self.message = message
    }

    public var description: String {
        "\(pointer.isEmpty ? "the item" : pointer): \(message) (\(keyword))"
    }
}
