/// A JSON number kept as its literal text (`25`, `-0.5`, `1e400`), so nothing is lost to rounding and
/// an id such as `1.50` or `12345678901234567890` is echoed exactly as the client wrote it.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number as written; always valid JSON number syntax.
    public let literal: String

    /// A number from JSON number text; nil when `literal` is not valid JSON number syntax.
    public init?(literal: String) {
        guard JSONNumber.isValidLiteral(literal.utf8) else { return nil }
        self.literal = literal
    }

    /// Trusts that `literal` is valid; for the parser, which has already checked it.
    init(uncheckedLiteral literal: String) {
        self.literal = literal
    }

    public init(_ value: Int) {
        self.literal = String(value)
    }

    public var description: String { literal }

    /// True when the literal has neither a fraction nor an exponent (`25`, `-3`, `12345678901234567890`).
    public var isInteger: Bool {
        !literal.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
    }

    /// The value as an `Int` when it is an integer literal that fits.
    public var intValue: Int? {
        isInteger ? Int(literal) : nil
    }

    /// The value as a `Double` (`inf` when it is too large for one).
    public var doubleValue: Double {
        Double(literal) ?? .nan
    }

    /// Checks `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// Inlinable and free of closures, so a caller's concrete collection (a scanner's buffer) is checked
    /// without generic dispatch: it runs once per number of a 20 MB file.
    @inlinable
    public static func isValidLiteral<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        var index = bytes.startIndex
        let end = bytes.endIndex
        if index != end, bytes[index] == UInt8(ascii: "-") { bytes.formIndex(after: &index) }
        guard index != end else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            bytes.formIndex(after: &index)
        } else if !skipDigits(bytes, &index) {
            return false
        }
        if index != end, bytes[index] == UInt8(ascii: ".") {
            bytes.formIndex(after: &index)
            guard skipDigits(bytes, &index) else { return false }
        }
        if index != end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            bytes.formIndex(after: &index)
            if index != end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { bytes.formIndex(after: &index) }
            guard skipDigits(bytes, &index) else { return false }
        }
        return index == end
    }

    /// Moves `index` past the digits there; false when there were none.
    @inlinable
    static func skipDigits<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ index: inout Bytes.Index) -> Bool {
        let start = index
        while index != bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            bytes.formIndex(after: &index)
        }
        return index != start
    }
}
