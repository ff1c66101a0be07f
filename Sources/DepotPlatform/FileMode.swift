#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's permission bits, shown the way `chmod` takes them (`0644`), for messages that tell a user
/// what to change.
public struct FileMode: Sendable, Equatable, CustomStringConvertible {
    /// The permission bits, including setuid, setgid and sticky (`st_mode & 0o7777`).
    public let bits: UInt32

    public init(_ bits: UInt32) {
        self.bits = bits & 0o7777
    }

    /// The mode of what is at `path`, following symbolic links; nil when it cannot be examined.
    public init?(ofPath path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(UInt32(status.st_mode))
    }

    /// True when neither the owner, nor the group, nor others have the write bit.
    public var hasNoWriteBit: Bool { bits & 0o222 == 0 }

    /// At least four octal digits, with leading zeros: `0444`, `0755`, `2750`.
    public var description: String {
        let digits = String(bits, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
