#if canImport(Glibc)
import Glibc
#endif

/// A Unix socket address for the tests' raw sockets: a path, or an abstract name (a leading NUL byte).
struct UnixSocketAddress {
    let bytes: [UInt8]

    init(path: String, abstract: Bool = false) {
        bytes = (abstract ? [0] : []) + Array(path.utf8)
    }

    /// Calls `body` with the address as a `sockaddr` and its length, for bind(2) and connect(2).
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        // A path counts its terminating NUL; an abstract name is exactly its bytes.
        let isAbstract = bytes.first == 0
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// A bound, listening Unix socket, as a socket unit would pass it, or as a daemon killed without cleaning
/// up leaves behind once closed.
package final class ListeningSocket: Sendable {
    package let fd: Int32

    package init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        let bound = UnixSocketAddress(path: path).withSocketAddress { bind(fd, $0, $1) }
        guard fd > 3, bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw RawSocketError("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(fd)
    }
}
