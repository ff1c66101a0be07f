#if canImport(Glibc)
import Glibc
#endif

/// Whether standard error is connected to the systemd journal: systemd sets JOURNAL_STREAM to the
/// "device:inode" of the stream it connected, and only when ours still is that stream should depotd log to
/// the journal natively (a redirect, say to a file, must win).
package enum JournalStream {
    package static func isStandardErrorConnected(environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
