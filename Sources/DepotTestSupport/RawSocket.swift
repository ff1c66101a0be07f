package import DepotClient
package import DepotJSON

#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking Unix socket, for a client that the daemon must not be able to hurt: one that never
/// reads, or reads only when the test says so. Reads wait with poll(2) up to a generous limit.
package final class RawSocket: @unchecked Sendable {
    // Sendable because each test uses its socket from one task at a time; the descriptor itself is immutable.
    package let fd: Int32
    private let tap: (any ConnectionTap)?
    private var buffered: [UInt8] = []

    /// Connects to `path`; `tap`, when given, sees what is sent and each line read (a `ProtocolChecker`).
    package init(connectingTo path: String, receiveBufferBytes: Int32? = nil, tap: (any ConnectionTap)? = nil) throws {
        self.tap = tap
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawSocketError("socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let result = UnixSocketAddress(path: path).withSocketAddress { connect(fd, $0, $1) }
        guard result == 0 else {
            close(fd)
            throw RawSocketError("connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(fd)
    }

    package func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    package func send(bytes: [UInt8]) throws {
        tap?.sent(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard written >= 0 else { throw RawSocketError("send: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// The next line without its newline; nil at end of stream. Waits on a Dispatch thread.
    package func readLine(timeoutSeconds: Int32 = 60) async throws -> [UInt8]? {
        let line = try await offloaded { try self.readLineNow(timeoutSeconds: timeoutSeconds) }
        if let line { tap?.received(line) }
        return line
    }

    private func readLineNow(timeoutSeconds: Int32) throws -> [UInt8]? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffered[..<newline])
                buffered.removeSubrange(...newline)
                return line
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeoutSeconds * 1000)
            guard ready > 0 else { throw RawSocketError("no line within \(timeoutSeconds) s") }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 {
                return buffered.isEmpty
                    ? nil
                    : {
                        defer { buffered = [] }
                        return buffered
                    }()
            }
            guard count > 0 else { throw RawSocketError("recv: \(String(cString: strerror(errno)))") }
            buffered += chunk[0..<count]
        }
    }

    package func readMessage() async throws -> JSONValue {
        guard let line = try await readLine() else { throw RawSocketError("the connection ended") }
        return try JSONParser.parse(line)
    }

    package func shutdownWrite() {
        tap?.finishedSending()
        shutdown(fd, Int32(SHUT_WR))
    }
}

package struct RawSocketError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
