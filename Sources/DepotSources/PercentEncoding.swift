import DepotJSON

/// `%XX` escapes in URIs (RFC 3986): the one decoder and encoder of the source addresses.
public enum PercentEncoding {
    /// Why escaped text cannot be decoded.
    public enum Problem: Error, Sendable, Equatable {
        /// A `%` not followed by two hex digits; `escape` is what follows it, as written (at most 3 characters).
        case badEscape(String)
        /// `%00`: the text would hold a NUL byte.
        case nul
        /// The decoded bytes are not UTF-8.
        case notUTF8
    }

    /// `text` with its `%XX` escapes decoded.
    public static func decoded(_ text: Substring) throws(Problem) -> String {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            guard utf8[index] == UInt8(ascii: "%") else {
                bytes.append(utf8[index])
                index += 1
                continue
            }
            guard index + 2 < utf8.count, let high = HexDigit.value(utf8[index + 1]), let low = HexDigit.value(utf8[index + 2]) else {
                throw .badEscape(String(decoding: utf8[index..<min(index + 3, utf8.count)], as: UTF8.self))
            }
            let byte = high << 4 | low
            guard byte != 0 else { throw .nul }
            bytes.append(byte)
            index += 3
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return decoded
    }

    /// `text` with every byte but RFC 3986's unreserved characters (letters, digits, `-._~`) written as `%XX`
    /// of its UTF-8: safe as one path segment, as a user name, and as a query value.
    public static func encoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
