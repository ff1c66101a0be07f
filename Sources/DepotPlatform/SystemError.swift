#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, described as what was being done and the system's reason
/// ("cannot read /x/items.json: No such file or directory").
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// The errno value, when the error came from a system call.
    public let code: Int32?

    /// Captures the current `errno`.
    public init(_ what: String) {
        let code = errno
        self.code = code
        self.description = "\(what): \(String(cString: strerror(code)))"
    }

    /// An error described by `message` alone; `code` is the errno value it stands for, if any.
    public init(message: String, code: Int32? = nil) {
        self.code = code
        self.description = message
    }
}
