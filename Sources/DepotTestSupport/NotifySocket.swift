#if canImport(Glibc)
import Glibc
#endif

/// A stand-in for systemd's notification socket: a datagram socket that collects what sd_notify sends.
/// Bound to a path, or to an abstract address (NOTIFY_SOCKET=@name) when `abstract` is true.
package final class NotifySocket: @unchecked Sendable {
    // Sendable because a test reads it from one task at a time; the descriptor never changes.
    package let fd: Int32
    /// The value to put in NOTIFY_SOCKET.
    package let address: String

    package init(path: String, abstract: Bool = false) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw RawSocketError("socket: \(String(cString: strerror(errno)))") }
        // An abstract address starts with a NUL byte and is not a file; NOTIFY_SOCKET writes it with "@".
        let result = UnixSocketAddress(path: path, abstract: abstract).withSocketAddress { bind(fd, $0, $1) }
        guard result == 0 else {
            close(fd)
            throw RawSocketError("bind \(path): \(String(cString: strerror(errno)))")
        }
        address = abstract ? "@" + path : path
    }

    deinit {
        close(fd)
    }

    /// The next message; fails when none comes within `timeoutSeconds`. Waits on a Dispatch thread.
    package func receive(timeoutSeconds: Int32 = 60) async throws -> String {
        try await offloaded { try self.receiveNow(timeoutSeconds: timeoutSeconds) }
    }

    private func receiveNow(timeoutSeconds: Int32) throws -> String {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutSeconds * 1000) > 0 else {
            throw RawSocketError("no notification within \(timeoutSeconds) s")
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw RawSocketError("recv: \(String(cString: strerror(errno)))") }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Messages until one satisfies `predicate`; returns them all, the matching one last.
    package func receive(until predicate: (String) -> Bool, timeoutSeconds: Int32 = 60) async throws -> [String] {
        var messages: [String] = []
        repeat {
            messages.append(try await receive(timeoutSeconds: timeoutSeconds))
        } while !predicate(messages.last!)
        return messages
    }

    /// A message's assignments as a dictionary ("READY=1\nSTATUS=x" → ["READY": "1", "STATUS": "x"]).
    package static func fields(_ message: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in message.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }
}
