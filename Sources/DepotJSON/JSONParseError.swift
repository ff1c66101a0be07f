/// Why `JSONParser` rejected a text, and the byte offset where it noticed, so a client can be told
/// exactly what is wrong with what it sent ("unexpected character '}' at byte 17").
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The text ended inside a value (an open string, array or object, a cut-off literal).
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedCharacter(UInt8)
        /// A string holds bytes that are not well-formed UTF-8; the offset is the start of the bad sequence.
        case invalidUTF8
        /// A backslash escape that JSON does not define, or a `\u` not followed by four hex digits.
        case invalidEscape
        /// A `\uD800`–`\uDBFF` escape without its low half, or a lone `\uDC00`–`\uDFFF`;
        /// a Swift `String` cannot hold it.
        case loneSurrogate
        /// A raw byte below 0x20 inside a string; JSON requires it to be escaped.
        case controlCharacterInString
        /// A number that breaks JSON's grammar (`01`, `1.`, `-`, `1e`, `0x10`); the offset is the offending byte.
        case invalidNumber
        /// Arrays and objects nested deeper than `limit`; the offset is the bracket that went too deep.
        case tooDeep(limit: Int)
        /// Something other than whitespace follows the value.
        case trailingContent
        /// No value at all: the text is empty or only whitespace.
        case empty
    }

    public var reason: Reason
    /// Byte offset into the input where the problem is (the input's length for `unexpectedEnd` and `empty`).
    public var offset: Int

    public init(reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        switch reason {
        case .unexpectedEnd:
            "unexpected end of text at byte \(offset)"
        case .unexpectedCharacter(let byte):
            "unexpected character \(Self.describe(byte)) at byte \(offset)"
        case .invalidUTF8:
            "invalid UTF-8 at byte \(offset)"
        case .invalidEscape:
            "invalid escape sequence at byte \(offset)"
        case .loneSurrogate:
            "unpaired UTF-16 surrogate escape at byte \(offset)"
        case .controlCharacterInString:
            "unescaped control character in string at byte \(offset)"
        case .invalidNumber:
            "invalid number at byte \(offset)"
        case .tooDeep(let limit):
            "nesting deeper than \(limit) levels at byte \(offset)"
        case .trailingContent:
            "unexpected content after the JSON value at byte \(offset)"
        case .empty:
            "no JSON value in the text (empty or only whitespace)"
        }
    }

    /// Printable ASCII as `'x'`, anything else as `0xNN`, so the message stays one readable line.
    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0\(hex)" : "0x\(hex)"
    }
}
