import Crypto

/// A digest of the bytes a collection was read from, kept in its `SourceVersion`: reading the same bytes again is
/// "unchanged" for the cost of a hash, not of a parse, and publishes nothing. SHA-256, so that two different
/// contents never pass for one: a 64-bit hash would be cheaper, but a collision would hide a change for good.
public enum ContentDigest {
    /// `sha256:` and the digest's 64 lowercase hexadecimal digits.
    public static func of(_ bytes: [UInt8]) -> String {
        text(of: SHA256.hash(data: bytes))
    }

    /// The digest of bytes given in pieces, as a file is written from a buffer that is reused: equal to `of` their
    /// concatenation.
    struct Running {
        private var hasher = SHA256()

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: bytes)
        }

        func finish() -> String {
            ContentDigest.text(of: hasher.finalize())
        }
    }

    private static func text(of digest: SHA256.Digest) -> String {
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
