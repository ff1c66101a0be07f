#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port where nothing listens, held for as long as this value lives: a socket bound to it that never
/// calls listen(2), so every connection is refused at once. A stopped server's port would do only until another
/// test running alongside is given the same port.
package final class RefusingPort: Sendable {
    package let port: Int
    private let fd: Int32

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawSocketError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw RawSocketError("bind to 127.0.0.1: \(message)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(fd)
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }
}
