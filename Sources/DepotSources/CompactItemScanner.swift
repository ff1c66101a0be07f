import DepotCore
import DepotJSON

/// Reads a file's items without building a tree of values, when the file makes that safe: a JSON array of
/// objects, each written compactly in ASCII with no escapes (as `FileSource` itself writes them, one per line).
/// Each item's bytes are then already exactly what the parser and the compact writer would give, so they are
/// copied as they are, and the id is read in passing. At 100,000 items of 200 bytes this takes a fraction of
/// parsing the file into values and writing each item back.
///
/// It validates everything it accepts (the JSON grammar, the nesting limit, ids); anything else — whitespace
/// inside an item, an escape, a non-ASCII byte, a missing or invalid id, a repeated id, invalid JSON — makes it
/// answer nil, and the caller takes the general path, which also gives the error message.
enum CompactItemScanner {
    /// The deepest nesting accepted, as the parser's limit.
    static let maxDepth = 512

    /// The items of `bytes`, or nil when the general path must read them.
    static func items(in bytes: [UInt8], idField: String) -> [Item]? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer, idField: Array(idField.utf8))
            return scanner.items()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let idField: [UInt8]
        var position = 0

        mutating func items() -> [Item]? {
            skipWhitespace()
            guard take(UInt8(ascii: "[")) else { return nil }
            var items: [Item] = []
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return atEnd() ? items : nil }
            while true {
                skipWhitespace()
                guard let item = item() else { return nil }
                items.append(item)
                skipWhitespace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { return nil }
                return atEnd() ? items : nil
            }
        }

        /// One item: an object whose member `idField` is a string or an integer.
        private mutating func item() -> Item? {
            let start = position
            guard take(UInt8(ascii: "{")) else { return nil }
            var id: String?
            if !take(UInt8(ascii: "}")) {
                repeat {
                    guard let key = string() else { return nil }
                    guard take(UInt8(ascii: ":")) else { return nil }
                    let valueStart = position
                    guard value(depth: 2) else { return nil }
                    if bytes[key].elementsEqual(idField) {
                        // The last member of that name counts, as for a parsed object.
                        id = Self.id(UnsafeBufferPointer(rebasing: bytes[valueStart..<position]))
                    }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            guard let id else { return nil }
            return Item(id: id, json: Array(bytes[start..<position]))
        }

        /// A string value as an id (its content), or an integer's literal; nil for anything else.
        private static func id(_ value: UnsafeBufferPointer<UInt8>) -> String? {
            guard let first = value.first else { return nil }
            if first == UInt8(ascii: "\"") {
                guard value.count > 2 else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: value[1..<(value.count - 1)]), as: UTF8.self)
            }
            // An integer id is its literal, as `ItemCollection` reads one from a parsed value.
            guard let number = JSONNumber(literal: String(decoding: value, as: UTF8.self)), number.isInteger else { return nil }
            return number.literal
        }

        /// Any value, compact: no whitespace anywhere in it.
        private mutating func value(depth: Int) -> Bool {
            guard depth <= CompactItemScanner.maxDepth, position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                if take(UInt8(ascii: "}")) { return true }
                repeat {
                    guard string() != nil, take(UInt8(ascii: ":")), value(depth: depth + 1) else { return false }
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "}"))
            case UInt8(ascii: "["):
                position += 1
                if take(UInt8(ascii: "]")) { return true }
                repeat {
                    guard value(depth: depth + 1) else { return false }
                } while take(UInt8(ascii: ","))
                return take(UInt8(ascii: "]"))
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "t"):
                return literal("true")
            case UInt8(ascii: "f"):
                return literal("false")
            case UInt8(ascii: "n"):
                return literal("null")
            default:
                return number()
            }
        }

        /// A string of printable ASCII without escapes; the range of its content.
        private mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            skipPlainASCII()
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    position += 1
                    return start..<(position - 1)
                }
                // An escape, a control character or a non-ASCII byte: the general path decides.
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            return nil
        }

        /// Moves past plain bytes (printable ASCII other than `"` and `\\`) 16 at a time, stopping at the block
        /// that holds the first other byte: a string's long runs (a description, a padding) cost a few
        /// instructions per 16 bytes instead of a few per byte.
        private mutating func skipPlainASCII() {
            guard let base = bytes.baseAddress else { return }
            let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\"")), backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
            let low = SIMD16<UInt8>(repeating: 0x20), high = SIMD16<UInt8>(repeating: 0x7E)
            while bytes.count - position >= 16 {
                let block = UnsafeRawPointer(base + position).loadUnaligned(as: SIMD16<UInt8>.self)
                let special = (block .== quote) .| (block .== backslash) .| (block .< low) .| (block .> high)
                if any(special) { return }
                position += 16
            }
        }

        private mutating func number() -> Bool {
            let start = position
            while position < bytes.count, Self.isNumberByte(bytes[position]) {
                position += 1
            }
            return position > start && JSONNumber.isValidLiteral(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        }

        private static func isNumberByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - position >= count,
                UnsafeBufferPointer(rebasing: bytes[position..<(position + count)]).elementsEqual(
                    UnsafeBufferPointer(start: word.utf8Start, count: count))
            else { return false }
            position += count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        private mutating func skipWhitespace() {
            while position < bytes.count,
                bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\n") || bytes[position] == UInt8(ascii: "\r")
                    || bytes[position] == UInt8(ascii: "\t")
            {
                position += 1
            }
        }

        /// Whether only whitespace is left.
        private mutating func atEnd() -> Bool {
            skipWhitespace()
            return position == bytes.count
        }
    }
}
