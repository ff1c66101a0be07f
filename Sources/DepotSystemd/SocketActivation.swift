import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket that systemd opened and passed to depotd (socket activation).
package struct InheritedSocket: Sendable, Equatable {
    /// The file descriptor, from SD_LISTEN_FDS_START (3) on.
    package let descriptor: Int32
    /// Its name from FileDescriptorName= (LISTEN_FDNAMES), "unknown" when the unit gave none.
    package let name: String

    /// The path the socket is bound to, read with getsockname; nil for an abstract or unnamed socket.
    package var path: String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }
}

/// Reads the sockets systemd passed with LISTEN_FDS / LISTEN_PID / LISTEN_FDNAMES.
package enum SocketActivation {
    /// Why a passed socket cannot be served, so depotd can say so instead of listening somewhere else.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The Unix stream socket systemd passed to this process, if it passed any: the one named `name`, or the
    /// only one. The LISTEN_* variables are removed, so processes depotd starts do not think they were passed it.
    package static func inheritedUnixSocket(named name: String = "depotd") throws(Problem) -> InheritedSocket? {
        let sockets = inheritedSockets()
        guard !sockets.isEmpty else { return nil }
        let chosen = sockets.first(where: { $0.name == name }) ?? (sockets.count == 1 ? sockets[0] : nil)
        guard let chosen else {
            let names = sockets.map(\.name).joined(separator: ", ")
            throw Problem(
                description:
                    "systemd passed \(sockets.count) sockets (\(names)) and none is named \(name); set FileDescriptorName=\(name) in the socket unit")
        }
        guard sd_is_socket_unix(chosen.descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw Problem(
                description:
                    "the socket systemd passed (fd \(chosen.descriptor), \(chosen.name)) is not a listening Unix stream socket; use ListenStream=/path in the socket unit"
            )
        }
        return chosen
    }

    /// Every socket passed, in order, with its name.
    static func inheritedSockets() -> [InheritedSocket] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        defer {
            if let names {
                for index in 0..<max(Int(count), 0) { free(names[index]) }
                free(names)
            }
        }
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { index in
            let name = names?[index].map { String(cString: $0) } ?? "unknown"
            return InheritedSocket(descriptor: SD_LISTEN_FDS_START + Int32(index), name: name)
        }
    }
}
