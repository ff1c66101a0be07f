public import DepotJSON

/// One element of the collection: its id and the JSON object exactly as the source gave it
/// (members in order, unknown members and number literals kept), stored in compact form.
///
/// Only the compact text is kept, not a parsed tree: the daemon never looks inside an item after
/// loading, and the text is what it sends, so a state with many items is encoded by copying bytes.
public struct Item: Sendable, Hashable {
    /// The id, read from the repository's id field; integer ids are given as their decimal text.
    public let id: String
    /// The item as compact JSON text (an object).
    public let json: [UInt8]

    public init(id: String, json: [UInt8]) {
        self.id = id
        self.json = json
    }

    /// The item parsed back into a value; for callers that need its fields.
    public var value: JSONValue {
        get throws(JSONParseError) { try JSONParser.parse(json) }
    }
}
