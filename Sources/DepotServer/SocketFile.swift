import DepotPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Unix socket's path on disk: made ready before binding, bound in a private directory and given its mode
/// there before it is moved into place, and removed on shutdown only if it is still the file this server created.
enum SocketFile {
    /// Why the socket path cannot be used, in words a user can act on.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Identifies one file, so shutdown does not remove a socket another process put in its place.
    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// Makes `path` free to bind: creates missing parent directories, removes a stale socket left by a
    /// daemon that died, and refuses when another daemon answers there or the path is not a socket.
    static func prepare(_ path: String) throws(Problem) {
        guard path.utf8.count < maxPathLength else {
            throw Problem(
                description:
                    "socket path \(path) is \(path.utf8.count) bytes long; Unix sockets allow at most \(maxPathLength - 1): choose a shorter --socket"
            )
        }
        // Only the socket's own directory is made (`depot` in $XDG_RUNTIME_DIR or /run): a mistyped path is an
        // error, not a tree of new directories.
        let directory = Directories.parent(of: path)
        let above = Directories.parent(of: directory)
        if !Directories.exists(directory), !Directories.exists(above) {
            throw Problem(
                description:
                    "cannot put the socket at \(path): \(above) does not exist (depotd makes only the socket's own directory); check the --socket path, or create \(above) first"
            )
        }
        do {
            try Directories.create(directory, mode: 0o755)
        } catch {
            throw Problem(description: "cannot create the socket's directory: \(error)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw Problem(description: "cannot inspect socket path \(path): \(lastError())")
        }
        guard (status.st_mode & S_IFMT) == S_IFSOCK else {
            throw Problem(description: "\(path) exists and is not a socket; refusing to replace it: remove it or choose another --socket")
        }
        switch probe(path) {
        case .listening:
            throw Problem(description: "another depotd is already listening on \(path); stop it first, or give this one another --socket")
        case .stale:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw Problem(description: "cannot remove the stale socket \(path): \(lastError())")
            }
        case .unknown(let reason):
            throw Problem(description: "cannot tell whether a daemon is listening on \(path) (\(reason)); remove it if it is stale")
        }
    }

    /// A private directory beside the socket's path (mode 0700), to bind in before the socket has its mode.
    struct Staging {
        let directory: String
        let socketPath: String
        let finalPath: String

        /// Nil when the staged path would be too long for a Unix socket (a path near the limit): the socket is then
        /// bound in place and given its mode right after.
        init?(for path: String) throws(Problem) {
            directory = Directories.parent(of: path) + "/.depotd.\(getpid())"
            socketPath = directory + "/s"
            finalPath = path
            guard socketPath.utf8.count < maxPathLength else { return nil }
            _ = rmdir(directory)
            guard mkdir(directory, 0o700) == 0 else {
                throw Problem(description: "cannot create \(directory) to bind the socket in: \(lastError())")
            }
        }

        /// Moves the bound socket to its path (a rename: the same socket, already listening).
        func moveSocket() throws(Problem) {
            guard rename(socketPath, finalPath) == 0 else {
                throw Problem(description: "cannot move the socket into place at \(finalPath): \(lastError())")
            }
        }

        /// Removes what is left: the socket if it was not moved, and the directory.
        func remove() {
            _ = unlink(socketPath)
            _ = rmdir(directory)
        }
    }

    static func setMode(_ path: String, _ mode: UInt32) throws(Problem) {
        guard chmod(path, mode_t(mode)) == 0 else {
            throw Problem(description: "cannot set mode \(String(mode, radix: 8)) on \(path): \(lastError())")
        }
    }

    static func identity(of path: String) -> Identity? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Removes `path` if it is still the file identified by `identity`.
    static func remove(_ path: String, ifStill identity: Identity?) {
        guard let identity, self.identity(of: path) == identity else { return }
        unlink(path)
    }

    // MARK: Internals

    private static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    private enum ProbeResult {
        case listening, stale, unknown(String)
    }

    /// Connects without blocking: refused means nobody listens; accepted or busy means a live daemon.
    private static func probe(_ path: String) -> ProbeResult {
        #if canImport(Glibc)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .unknown(lastError()) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .listening }
        switch errno {
        case ECONNREFUSED, ENOENT: return .stale
        case EAGAIN, EINPROGRESS: return .listening
        default: return .unknown(lastError())
        }
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
