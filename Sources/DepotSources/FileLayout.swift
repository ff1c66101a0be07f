import DepotCore
import DepotJSON

/// Where a file's items stand in it and how it lays them out: what a file source needs to change items in place,
/// leaving every other byte — a person's formatting, comments in strings, the line endings — as it was.
struct FileLayout: Sendable, Equatable {
    /// Each item's first byte and the byte after its last, in list order: two per item.
    var spans: [Int]
    /// The offset after `[`, and the offset of `]`.
    var contentStart: Int
    var contentEnd: Int
    /// What goes between two items (the comma and the whitespace around it), as the file has it.
    var separator: [UInt8]
    /// How an item is laid out inside.
    var style: ItemTextStyle

    var count: Int { spans.count / 2 }

    /// The span of item `index`.
    func span(_ index: Int) -> Range<Int> {
        spans[2 * index]..<spans[2 * index + 1]
    }

    /// The layout depotd writes a file in when it has nothing to learn from: one compact item per line.
    static let depotDefault = (separator: Array(",\n".utf8), opening: Array("\n".utf8), closing: Array("\n".utf8))
}

/// A file's items read in one pass without a tree of values (`JSONArrayScanner`), with their layout.
enum FileScan {
    /// The items of `bytes` checked into a collection, with where each stands; nil when the file is not a JSON array of
    /// objects each with a usable id, or an id repeats — the general path then says what is wrong.
    static func scan(_ bytes: [UInt8], idField: String) -> (items: ItemCollection, layout: FileLayout)? {
        var items: [Item] = []
        var spans: [Int] = []
        let bounds = bytes.withUnsafeBytes { buffer in
            try? JSONArrayScanner.scan(buffer, capturing: idField) { element in
                guard element.isObject, let captured = element.captured, let id = id(in: element.compact[captured]) else { return false }
                items.append(Item(id: id, json: element.compact))
                spans.append(element.span.lowerBound)
                spans.append(element.span.upperBound)
                return true
            }
        }
        guard let bounds = bounds ?? nil, let collection = try? ItemCollection(items: items) else { return nil }
        return (collection, layout(of: bytes, spans: spans, bounds: bounds))
    }

    /// The layout of `bytes`, whose items stand at `spans`.
    private static func layout(of bytes: [UInt8], spans: [Int], bounds: JSONArrayScanner.Bounds) -> FileLayout {
        guard spans.count >= 2 else {
            return FileLayout(
                spans: spans, contentStart: bounds.contentStart, contentEnd: bounds.contentEnd, separator: FileLayout.depotDefault.separator,
                style: .compact)
        }
        let opening = Array(bytes[bounds.contentStart..<spans[0]])
        let lineIndent = opening.lastIndex(of: UInt8(ascii: "\n")).map { Array(opening[($0 + 1)...]) } ?? []
        let separator = spans.count >= 4 ? Array(bytes[spans[1]..<spans[2]]) : [UInt8(ascii: ",")] + opening
        let style = bytes.withUnsafeBufferPointer { ItemTextStyle.of(UnsafeBufferPointer(rebasing: $0[spans[0]..<spans[1]]), lineIndent: lineIndent) }
        return FileLayout(spans: spans, contentStart: bounds.contentStart, contentEnd: bounds.contentEnd, separator: separator, style: style)
    }

    /// An id as a collection reads one, from its compact JSON: a non-empty string's content, or an integer's literal.
    private static func id(in value: ArraySlice<UInt8>) -> String? {
        guard let first = value.first else { return nil }
        if first == UInt8(ascii: "\"") {
            guard value.count > 2 else { return nil }
            let content = value.dropFirst().dropLast()
            if !content.contains(UInt8(ascii: "\\")) { return String(decoding: content, as: UTF8.self) }
            guard case .string(let text)? = try? JSONParser.parse(Array(value)) else { return nil }
            return text
        }
        // Any other value the scanner copied as written: a number when it begins so (checked by the scan), an integer
        // when it has no fraction or exponent.
        guard first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        guard !value.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }
}
