import Foundation

/// How a file lays out the same items (issue 39: the data users have, not only the layout that is fastest): as
/// depot-bench writes it, as `json.dump` writes it with and without `separators`, and pretty-printed as `jq .`,
/// `json.dump(indent=2)` and `JSON.stringify(x, null, 2)` do. Each writes exactly what those tools write.
public enum BenchLayout: String, CaseIterable, Codable, Sendable {
    /// One compact item per line: the benchmark's own layout, and depotd's when it writes a new file.
    case itemPerLine = "one item per line, compact"
    /// One line, compact: `json.dump(items, f, separators=(",", ":"))`.
    case compactLine = "one line, compact"
    /// One line, Python's default `json.dump`: `", "` between values, `": "` after keys.
    case pythonDefault = "one line, json.dump default"
    /// Pretty-printed with two spaces: `jq .`, `json.dump(indent=2)`.
    case indented = "indent=2"

    /// One item's members: what the layouts write. About `bytes` bytes compact; the id an integer or, with
    /// `stringIDs`, the string `"item-N"`.
    struct Item {
        let id: Int
        let stringID: Bool
        let padding: Int

        var idLiteral: String { stringID ? #""item-\#(id)""# : "\(id)" }
    }

    /// The items' members, in order: `id`, `name`, `types` (an array of two), `note` (padding).
    private static func members(_ item: Item) -> [(key: String, value: Value)] {
        [
            ("id", .literal(item.idLiteral)), ("name", .literal(#""item \#(item.id)""#)), ("types", .strings(["normal", "fire"])),
            ("note", .literal("\"" + String(repeating: "x", count: item.padding) + "\"")),
        ]
    }

    private enum Value {
        case literal(String)
        case strings([String])
    }

    /// The padding that makes an item of id `id` `bytes` bytes long, compact.
    static func padding(forBytes bytes: Int, id: Int, stringID: Bool) -> Int {
        let empty = Item(id: id, stringID: stringID, padding: 0)
        return max(0, bytes - BenchLayout.itemPerLine.text(empty).utf8.count)
    }

    /// One item in this layout, indented as an element of the top-level array.
    func text(_ item: Item) -> String {
        let members = Self.members(item)
        switch self {
        case .itemPerLine, .compactLine:
            return "{" + members.map { #""\#($0.key)":"# + Self.compact($0.value) }.joined(separator: ",") + "}"
        case .pythonDefault:
            return "{" + members.map { #""\#($0.key)": "# + Self.spaced($0.value) }.joined(separator: ", ") + "}"
        case .indented:
            let lines = members.map { member -> String in
                switch member.value {
                case .literal(let text): #"    "\#(member.key)": \#(text)"#
                case .strings(let values):
                    #"    "\#(member.key)": ["# + "\n" + values.map { #"      "\#($0)""# }.joined(separator: ",\n") + "\n    ]"
                }
            }
            return "  {\n" + lines.joined(separator: ",\n") + "\n  }"
        }
    }

    private static func compact(_ value: Value) -> String {
        switch value {
        case .literal(let text): text
        case .strings(let values): "[" + values.map { #""\#($0)""# }.joined(separator: ",") + "]"
        }
    }

    private static func spaced(_ value: Value) -> String {
        switch value {
        case .literal(let text): text
        case .strings(let values): "[" + values.map { #""\#($0)""# }.joined(separator: ", ") + "]"
        }
    }

    /// The array's opening, the text between two items, and its closing.
    private var frame: (open: String, between: String, close: String) {
        switch self {
        case .itemPerLine: ("[\n", ",\n", "\n]\n")
        case .compactLine: ("[", ",", "]")
        case .pythonDefault: ("[", ", ", "]")
        case .indented: ("[\n", ",\n", "\n]")
        }
    }

    /// Writes `count` items of about `itemBytes` bytes (compact) to `path` in this layout, and returns its size.
    @discardableResult
    public func write(count: Int, itemBytes: Int, stringIDs: Bool = false, to path: String) throws -> Int {
        // Created empty (or emptied), then written piece by piece: a million items are never one string.
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError("cannot write \(path)")
        }
        defer { try? file.close() }
        let frame = frame
        var chunk = frame.open
        var size = 0
        for id in 1...max(1, count) where count > 0 {
            if id > 1 { chunk += frame.between }
            chunk += text(Item(id: id, stringID: stringIDs, padding: Self.padding(forBytes: itemBytes, id: id, stringID: stringIDs)))
            if chunk.utf8.count > 1 << 20 {
                size += chunk.utf8.count
                try file.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        chunk += frame.close
        size += chunk.utf8.count
        try file.write(contentsOf: Data(chunk.utf8))
        return size
    }
}
