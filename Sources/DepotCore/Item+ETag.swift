import Crypto

extension Item {
    /// The item's entity tag: an opaque string that changes whenever the item's JSON changes and is the same for the
    /// same JSON — in every daemon, and across restarts, since it is read from the bytes alone (the first 128 bits of
    /// their SHA-256, as 32 hexadecimal digits). A conditional write (`ifMatch`) names the version it was made from by it.
    public var etag: String {
        ETag.of(json)
    }
}

/// Entity tags of item texts (see `Item.etag`).
public enum ETag {
    /// The tag of an item's compact JSON text.
    public static func of(_ json: [UInt8]) -> String {
        let digest = SHA256.hash(data: json)
        var text = ""
        text.reserveCapacity(32)
        for byte in digest.prefix(16) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0f)])
        }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef")
}
