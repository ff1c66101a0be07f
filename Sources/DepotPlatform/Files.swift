#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic whole-file replacement with POSIX calls; errors name the path and the reason.
/// These block: callers in async code run them off Swift's cooperative pool.
public enum Files {
    /// Every byte of the regular file at `path`.
    public static func readAll(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("cannot read \(path)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemError("cannot read \(path)") }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError(message: "cannot read \(path): it is not a regular file")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(status.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("cannot read \(path)")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Replaces `path` with `bytes` atomically: a temporary file in the same directory is written, synced
    /// and renamed over `path`, then the directory is synced. A crash leaves the old file or the new one,
    /// never a mix. The new file keeps the old one's permission bits (0644 for a new file).
    public static func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        let directory = Directories.parent(of: path)
        var mode: mode_t = 0o644
        var existing = stat()
        if stat(path, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        }
        let temporary = "\(directory)/.\(baseName(of: path)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("cannot write \(path): cannot create \(temporary)") }
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            _ = fchmod(fd, mode)
            try writeAll(fd, bytes, path: temporary)
            guard fsync(fd) == 0 else { throw SystemError("cannot write \(path): fsync of \(temporary) failed") }
        }
        guard rename(temporary, path) == 0 else { throw SystemError("cannot write \(path): rename failed") }
        succeeded = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("cannot write \(path)")
            }
            written += count
        }
    }

    private static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
