/// A 1-based line and column in UTF-8 text, so an error given as a byte offset (as `JSONParseError` gives
/// it) can point into the user's file the way an editor counts: the column is in Unicode scalars, not
/// bytes, and a leading byte order mark is not counted.
public struct TextPosition: Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The position of byte `offset` in `bytes`; an offset past the end is the position just after the
    /// last byte. Lines end at LF. In malformed UTF-8, every byte that is not a continuation byte counts
    /// as one column.
    public init(offset: Int, in bytes: some Collection<UInt8>) {
        var line = 1
        var column = 1
        // The mark's first byte would count as a column; its other two are continuation bytes.
        let skipped = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 1 : 0
        for (index, byte) in bytes.enumerated() {
            if index >= offset { break }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0b1100_0000 != 0b1000_0000 && index >= skipped {
                column += 1
            }
        }
        self.init(line: line, column: column)
    }

    /// `line 3, column 10`.
    public var description: String { "line \(line), column \(column)" }
}

extension JSONParseError {
    /// Where this error is in `bytes`, the text that was parsed.
    public func position(in bytes: some Collection<UInt8>) -> TextPosition {
        TextPosition(offset: offset, in: bytes)
    }
}
