/// Writes `JSONValue`s as JSON text: compact (no whitespace at all, so the output never holds a raw newline
/// and can be framed by newlines), members in their order, number literals exactly as stored, strings
/// escaped minimally (`"`, `\` and control characters; everything else, non-ASCII included, as UTF-8).
///
/// The writer keeps its own stack instead of recursing, so any depth of value can be written.
public enum JSONWriter {
    /// Bytes collected before they are handed to a generic `JSONOutput` in one piece.
    static let chunkSize = 32 * 1024

    /// Appends `value` as compact JSON to `output`.
    public static func write<Output: JSONOutput>(_ value: JSONValue, to output: inout Output) {
        // The work happens in a plain byte array (fast whatever `Output` is); it reaches `output` in chunks.
        var chunk: [UInt8] = []
        chunk.reserveCapacity(256)
        emit(value, into: &chunk, indent: nil, flushAt: chunkSize) { full in
            full.withUnsafeBytes { output.writeJSONBytes($0) }
            full.removeAll(keepingCapacity: true)
        }
        chunk.withUnsafeBytes { output.writeJSONBytes($0) }
    }

    /// Appends `string` as a quoted, escaped JSON string to `output`.
    public static func writeString<Output: JSONOutput>(_ string: String, to output: inout Output) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeEscaped(utf8, to: &output)
        }
        if done == nil {
            var contiguous = string
            contiguous.withUTF8 { writeEscaped($0, to: &output) }
        }
    }

    // MARK: Engine

    /// An array or object being written, and the index of its next element.
    private enum Frame {
        case array([JSONValue], next: Int)
        case object(JSONObject, next: Int)
    }

    /// Writes `value` into `bytes`, calling `flush` whenever `bytes` holds at least `flushAt` bytes.
    /// `indent` nil means compact; otherwise one element per line, indented by that many spaces per level.
    /// Open containers live on an explicit stack, so nesting costs no recursion.
    static func emit(
        _ value: JSONValue,
        into bytes: inout [UInt8],
        indent: Int?,
        flushAt threshold: Int,
        flush: (inout [UInt8]) -> Void
    ) {
        var stack: [Frame] = []
        var current: JSONValue? = value
        while let value = current {
            current = begin(value, &stack, into: &bytes, indent: indent)
            if current == nil {
                if bytes.count >= threshold {
                    flush(&bytes)
                }
                current = next(&stack, into: &bytes, indent: indent)
            }
        }
    }

    /// Writes a scalar or an empty container and returns nil; or opens a non-empty container (and, for an
    /// object, writes its first key) and returns its first element, to be written next.
    @inline(__always)
    private static func begin(_ value: JSONValue, _ stack: inout [Frame], into bytes: inout [UInt8], indent: Int?) -> JSONValue? {
        switch value {
        case .null:
            appendASCII("null", to: &bytes)
        case .bool(let flag):
            appendASCII(flag ? "true" : "false", to: &bytes)
        case .number(let number):
            bytes.append(contentsOf: number.literal.utf8)
        case .string(let string):
            writeString(string, to: &bytes)
        case .array(let elements):
            guard !elements.isEmpty else {
                appendASCII("[]", to: &bytes)
                return nil
            }
            bytes.append(ASCII.openBracket)
            stack.append(.array(elements, next: 1))
            newline(indent, depth: stack.count, to: &bytes)
            return elements[0]
        case .object(let object):
            guard !object.isEmpty else {
                appendASCII("{}", to: &bytes)
                return nil
            }
            bytes.append(ASCII.openBrace)
            stack.append(.object(object, next: 1))
            newline(indent, depth: stack.count, to: &bytes)
            writeKey(object[0].key, indent: indent, to: &bytes)
            return object[0].value
        }
        return nil
    }

    /// A value is done: the next element of the innermost unfinished container (its separator and key written),
    /// closing the containers that have none left; nil when the outermost is closed.
    @inline(__always)
    private static func next(_ stack: inout [Frame], into bytes: inout [UInt8], indent: Int?) -> JSONValue? {
        while let frame = stack.popLast() {
            switch frame {
            case .array(let elements, let next):
                if next < elements.count {
                    bytes.append(ASCII.comma)
                    stack.append(.array(elements, next: next + 1))
                    newline(indent, depth: stack.count, to: &bytes)
                    return elements[next]
                }
                newline(indent, depth: stack.count, to: &bytes)
                bytes.append(ASCII.closeBracket)
            case .object(let object, let next):
                if next < object.count {
                    bytes.append(ASCII.comma)
                    stack.append(.object(object, next: next + 1))
                    newline(indent, depth: stack.count, to: &bytes)
                    writeKey(object[next].key, indent: indent, to: &bytes)
                    return object[next].value
                }
                newline(indent, depth: stack.count, to: &bytes)
                bytes.append(ASCII.closeBrace)
            }
        }
        return nil
    }

    @inline(__always)
    private static func writeKey(_ key: String, indent: Int?, to bytes: inout [UInt8]) {
        writeString(key, to: &bytes)
        bytes.append(ASCII.colon)
        if indent != nil {
            bytes.append(ASCII.space)
        }
    }

    @inline(__always)
    private static func newline(_ indent: Int?, depth: Int, to bytes: inout [UInt8]) {
        guard let indent else { return }
        bytes.append(ASCII.newline)
        bytes.append(contentsOf: repeatElement(ASCII.space, count: indent * depth))
    }

    @inline(__always)
    private static func appendASCII(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    // MARK: Strings

    /// Writes `utf8` in quotes, escaping `"`, `\`, bytes below 0x20, U+2028 and U+2029; runs between escapes go
    /// out in bulk.
    static func writeEscaped<Output: JSONOutput>(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout Output) {
        output.writeJSONByte(ASCII.quote)
        guard let base = utf8.baseAddress else {
            output.writeJSONByte(ASCII.quote)
            return
        }
        let count = utf8.count
        var runStart = 0
        var i = 0
        while i < count {
            if count &- i >= 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if !mayNeedEscape(word) {
                    i &+= 8
                    continue
                }
            }
            let byte = utf8[i]
            if byte == 0xE2, count &- i >= 3, utf8[i &+ 1] == 0x80, utf8[i &+ 2] == 0xA8 || utf8[i &+ 2] == 0xA9 {
                // U+2028 and U+2029 are valid in JSON strings, but line breaks to JavaScript and to readers that
                // split lines the Unicode way; escaped, every message stays one line whatever splits it.
                if runStart < i {
                    output.writeJSONBytes(UnsafeRawBufferPointer(start: base + runStart, count: i &- runStart))
                }
                let escape: StaticString = utf8[i &+ 2] == 0xA8 ? "\\u2028" : "\\u2029"
                output.writeJSONBytes(UnsafeRawBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
                i &+= 3
                runStart = i
                continue
            }
            guard byte < 0x20 || byte == ASCII.quote || byte == ASCII.backslash else {
                i &+= 1
                continue
            }
            if runStart < i {
                output.writeJSONBytes(UnsafeRawBufferPointer(start: base + runStart, count: i &- runStart))
            }
            writeEscape(for: byte, to: &output)
            i &+= 1
            runStart = i
        }
        if runStart < count {
            output.writeJSONBytes(UnsafeRawBufferPointer(start: base + runStart, count: count &- runStart))
        }
        output.writeJSONByte(ASCII.quote)
    }

    /// True when any of the eight bytes is `"`, `\`, below 0x20, or 0xE2 (which starts U+2028 and U+2029); never
    /// misses one, may raise a false alarm.
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let lineSeparatorLead = word ^ (ones &* 0xE2)
        let hasLead = (lineSeparatorLead &- ones) & ~lineSeparatorLead & 0x8080_8080_8080_8080
        return (ASCII.quoteBackslashOrControlBits(word) | hasLead) != 0
    }

    /// `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, or `\u00XX` (lowercase hex) for other control characters.
    private static func writeEscape<Output: JSONOutput>(for byte: UInt8, to output: inout Output) {
        output.writeJSONByte(ASCII.backslash)
        switch byte {
        case ASCII.quote: output.writeJSONByte(ASCII.quote)
        case ASCII.backslash: output.writeJSONByte(ASCII.backslash)
        case 0x08: output.writeJSONByte(UInt8(ascii: "b"))
        case 0x0C: output.writeJSONByte(UInt8(ascii: "f"))
        case ASCII.newline: output.writeJSONByte(UInt8(ascii: "n"))
        case ASCII.carriageReturn: output.writeJSONByte(UInt8(ascii: "r"))
        case ASCII.tab: output.writeJSONByte(UInt8(ascii: "t"))
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            output.writeJSONByte(UInt8(ascii: "u"))
            output.writeJSONByte(ASCII.zero)
            output.writeJSONByte(ASCII.zero)
            output.writeJSONByte(hexDigits.utf8Start[Int(byte >> 4)])
            output.writeJSONByte(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}

extension JSONValue {
    /// The value as compact JSON bytes.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.emit(self, into: &bytes, indent: nil, flushAt: .max) { _ in }
        return bytes
    }

    /// The value as compact JSON text.
    public var jsonText: String {
        String(decoding: jsonBytes, as: UTF8.self)
    }

    /// Human-readable JSON for people (depotctl's output): one element per line, indented by `indent`
    /// spaces per level, `"key": value` with one space after the colon, empty arrays and objects as `[]`
    /// and `{}`, no trailing newline.
    public func prettyPrinted(indent: Int = 2) -> String {
        var bytes: [UInt8] = []
        JSONWriter.emit(self, into: &bytes, indent: max(indent, 0), flushAt: .max) { _ in }
        return String(decoding: bytes, as: UTF8.self)
    }
}
