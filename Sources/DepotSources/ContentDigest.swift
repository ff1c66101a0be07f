import Crypto

/// A digest of the bytes a collection was read from, kept in its `SourceVersion`: reading the same bytes again is
/// "unchanged" for the cost of a hash, not of a parse, and publishes nothing. SHA-256, so that two different
/// contents never pass for one: a 64-bit hash would be cheaper, but a collision would hide a change for good.
public enum ContentDigest {
    /// `sha256:` and the digest's 64 lowercase hexadecimal digits.
    public static func of(_ bytes: [UInt8]) -> String {
        let digest = SHA256.hash(data: bytes)
        var text = "sha256:"
        text.reserveCapacity(7 + 64)
        for byte in digest {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0x0f)])
        }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef")
}
