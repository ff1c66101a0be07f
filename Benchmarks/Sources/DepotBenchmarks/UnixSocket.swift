#if canImport(Glibc)
import Glibc
#endif

/// Plain POSIX Unix stream sockets: the benchmark's client side and the floor use no event library, so what
/// is measured is the servers, not a client framework.
public enum UnixSocket {
    /// Connects to `path`. `receiveBuffer`, when given, is set before connecting (a small one makes a
    /// subscriber that never reads fill up quickly).
    public static func connect(to path: String, receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("cannot create a socket: \(errnoText()); raise the open-file limit (ulimit -n)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = try socketAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = errnoText()
            close(fd)
            throw BenchError("cannot connect to \(path): \(reason)")
        }
        return fd
    }

    /// A listening socket bound to `path` (which must not exist).
    public static func listen(on path: String, backlog: Int32 = 4096) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("cannot create a socket: \(errnoText())") }
        var address = try socketAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let reason = errnoText()
            close(fd)
            throw BenchError("cannot listen on \(path): \(reason)")
        }
        return fd
    }

    public static func setNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Writes every byte of `bytes` on a blocking socket.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 1000)
                    continue
                }
                throw BenchError("cannot write to a socket: \(errnoText())")
            }
            offset += written
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, $0) }
    }

    /// Reads from a blocking socket, 64 bytes at a time, until a line has ended (a call's answer): what follows it is
    /// mostly left unread. Fails after `timeout` seconds without one.
    public static func readFirstLine(_ fd: Int32, timeout: Double, what: String) throws {
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        var chunk = [UInt8](repeating: 0, count: 64)
        while MonotonicClock.now() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 1000) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw BenchError("\(what): the connection ended before a line did") }
            if chunk[..<count].contains(0x0A) { return }
        }
        throw BenchError("\(what): no line within \(timeout) s")
    }

    static func socketAddress(_ path: String) throws -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw BenchError("the socket path \(path) is longer than \(capacity - 1) bytes; set TMPDIR to a shorter directory")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
