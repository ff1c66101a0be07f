import DepotCore
import DepotJSON

/// How a file lays out the inside of its items, learnt from one of them, so that an item depotd writes into the file
/// looks like its neighbours: compact (as depotd writes), on one line with spaces (Python's `json.dump`), or indented
/// (`jq .`, `JSON.stringify(x, null, 2)`, an editor's formatter), with the file's own indentation.
struct ItemTextStyle: Sendable, Equatable {
    enum Shape: Sendable, Equatable {
        /// No whitespace at all.
        case compact
        /// One line: `{"id": 1, "name": "x"}` — what follows each `:` and `,`, and what pads the brackets.
        case inline(colon: [UInt8], comma: [UInt8], padding: [UInt8])
        /// One member or element per line: the item's own line starts with `base` (the file's indentation of items),
        /// each level adds `unit`; `colon` follows each key.
        case indented(base: [UInt8], unit: [UInt8], colon: [UInt8])
    }

    var shape: Shape

    static let compact = ItemTextStyle(shape: .compact)

    /// The style of `text` (an item's bytes as the file has them, valid JSON), which the file indents by `lineIndent`
    /// (the whitespace before it on its line, "" when it does not start a line).
    static func of(_ text: UnsafeBufferPointer<UInt8>, lineIndent: [UInt8]) -> ItemTextStyle {
        var inString = false
        var escaped = false
        var index = 0
        var depth = 0
        var colon: [UInt8]?
        var comma: [UInt8]?
        var afterOpen: [UInt8]?
        while index < text.count {
            let byte = text[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 { afterOpen = whitespace(in: text, from: index + 1) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ":") where colon == nil:
                colon = whitespace(in: text, from: index + 1)
            case UInt8(ascii: ",") where comma == nil && depth == 1:
                comma = whitespace(in: text, from: index + 1)
            default:
                break
            }
            index += 1
        }
        let opening = afterOpen ?? []
        if let newline = opening.lastIndex(of: UInt8(ascii: "\n")) {
            let memberIndent = Array(opening[(newline + 1)...])
            let unit = memberIndent.starts(with: lineIndent) ? Array(memberIndent.dropFirst(lineIndent.count)) : memberIndent
            return ItemTextStyle(
                shape: .indented(
                    base: memberIndent.starts(with: lineIndent) ? lineIndent : [], unit: unit.isEmpty ? Array("  ".utf8) : unit, colon: colon ?? []))
        }
        if opening.isEmpty, (colon ?? []).isEmpty, (comma ?? []).isEmpty {
            return .compact
        }
        return ItemTextStyle(shape: .inline(colon: colon ?? [], comma: comma ?? [], padding: opening))
    }

    /// The spaces and tabs (and line breaks) at `start`.
    private static func whitespace(in text: UnsafeBufferPointer<UInt8>, from start: Int) -> [UInt8] {
        var end = start
        while end < text.count, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(text[end]) {
            end += 1
        }
        return Array(text[start..<end])
    }

    /// `item` written in this style (its first line not indented: the file's separator before it does that).
    func text(of item: Item) -> [UInt8] {
        guard shape != .compact, let value = try? item.value else { return item.json }
        var output: [UInt8] = []
        output.reserveCapacity(item.json.count * 2)
        write(value, depth: 0, to: &output)
        return output
    }

    private func write(_ value: JSONValue, depth: Int, to output: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                separate(first: index == 0, depth: depth + 1, to: &output)
                write(element, depth: depth + 1, to: &output)
            }
            close(depth: depth, to: &output)
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (index, member) in object.enumerated() {
                separate(first: index == 0, depth: depth + 1, to: &output)
                JSONWriter.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                switch shape {
                case .compact: break
                case .inline(let colon, _, _), .indented(_, _, let colon): output.append(contentsOf: colon)
                }
                write(member.value, depth: depth + 1, to: &output)
            }
            close(depth: depth, to: &output)
            output.append(UInt8(ascii: "}"))
        default:
            JSONWriter.write(value, to: &output)
        }
    }

    /// What comes before an element or member: a comma unless it is the first, then the shape's spacing.
    private func separate(first: Bool, depth: Int, to output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        switch shape {
        case .compact:
            break
        case .inline(_, let comma, let padding):
            output.append(contentsOf: first ? padding : comma)
        case .indented(let base, let unit, _):
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: base)
            for _ in 0..<depth { output.append(contentsOf: unit) }
        }
    }

    /// What comes before a closing bracket.
    private func close(depth: Int, to output: inout [UInt8]) {
        switch shape {
        case .compact:
            break
        case .inline(_, _, let padding):
            output.append(contentsOf: padding)
        case .indented(let base, let unit, _):
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: base)
            for _ in 0..<depth { output.append(contentsOf: unit) }
        }
    }
}
