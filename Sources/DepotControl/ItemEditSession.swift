import DepotJSON

/// What `depotctl edit` shows the editor and makes of what comes back: the item pretty-printed, with the reason
/// the last attempt was not saved on top as `//` lines (JSON has no comments; they are taken off again), and the
/// edited text judged — unchanged, cancelled, not JSON, not an object, or an item to put.
struct ItemEditSession {
    /// The item as depotd holds it, compact.
    let original: JSONValue

    /// What the edited text comes to.
    enum Outcome: Equatable {
        /// The same item: nothing to send.
        case unchanged
        /// Nothing but comments and whitespace: the edit is cancelled.
        case cancelled
        /// The text is not an item; `problem` says why, for the top of the file.
        case invalid(problem: String)
        /// An item to put.
        case changed(JSONObject)
    }

    /// The text the editor is given: `problems` as comment lines (none the first time), then `body`.
    static func text(body: String, problems: [String]) -> String {
        guard !problems.isEmpty else { return body }
        let header =
            ["depotctl edit: not saved:"] + problems.map { "  \($0)" }
            + ["Fix it and save to try again; empty the file to cancel. These lines are taken off."]
        return header.map { "// " + $0 }.joined(separator: "\n") + "\n" + body
    }

    /// The body of `text`: without the comment lines at its top.
    static func body(of text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first, first.hasPrefix("//") { lines = lines.dropFirst() }
        return lines.joined(separator: "\n")
    }

    /// What the edited `text` comes to.
    func judge(_ text: String) -> Outcome {
        let body = Self.body(of: text)
        guard body.contains(where: { !$0.isWhitespace }) else { return .cancelled }
        let bytes = Array(body.utf8)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .invalid(problem: "not valid JSON: \(error) (\(error.position(in: bytes)))")
        }
        guard case .object(let object) = value else { return .invalid(problem: "an item is a JSON object, not \(value.typeNameWithArticle)") }
        return value.jsonBytes == original.jsonBytes ? .unchanged : .changed(object)
    }
}
