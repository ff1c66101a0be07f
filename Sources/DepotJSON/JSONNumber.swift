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
    public static func isValidLiteral(_ bytes: some Collection<UInt8>) -> Bool {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
        func skipDigits() -> Int {
            var count = 0
            while isDigit(peek()) {
                index = bytes.index(after: index)
                count += 1
            }
            return count
        }
        if peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
        if peek() == UInt8(ascii: "0") {
            index = bytes.index(after: index)
        } else if skipDigits() == 0 {
            return false
        }
        if peek() == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            if skipDigits() == 0 { return false }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index = bytes.index(after: index)
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
            if skipDigits() == 0 { return false }
        }
        return index == bytes.endIndex
    }
}
