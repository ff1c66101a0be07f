/// Parses JSON text (RFC 8259, strictly) into a `JSONValue` that keeps object members in order,
/// duplicates included, and numbers as their literal text.
///
/// Whitespace (space, tab, LF, CR) may surround the value and a leading UTF-8 byte order mark is skipped.
/// Arrays and objects may nest at most `maxDepth` levels (the top-level container is level 1); the parser
/// keeps its own stack instead of recursing, so even absurdly deep input fails quickly with `.tooDeep`.
public enum JSONParser {
    /// The nesting limit used unless the caller asks for another.
    public static let defaultMaxDepth = 512

    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw JSONParseError(reason: .empty, offset: 0)
        }
        var engine = JSONParserEngine(
            bytes: base.assumingMemoryBound(to: UInt8.self),
            end: bytes.count,
            maxDepth: maxDepth
        )
        return try engine.parseDocument()
    }

    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) -> JSONValue in try parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
            }
        }
        return try result.get()
    }
}
