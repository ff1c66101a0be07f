import DepotPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a file source's blocking reads and stats on a thread of its own (a `BlockingPool` of one), so that they never
/// occupy a thread of Swift's cooperative pool. The thread stops when the source that owns it is let go.
final class FileIO: Sendable {
    private let thread = BlockingPool(label: "depot-file-io")

    /// The file's bytes, with its stamp as the read began.
    func readStamped(_ path: String) async throws(SystemError) -> (bytes: [UInt8], stamp: FileStamp) {
        try await thread.run { () throws(SystemError) in try Files.readAllStamped(path) }
    }

    func stamp(of path: String) async -> FileStamp? {
        await thread.run { FileStamp.of(path) }
    }

    /// The mode of `path` when it must not be rewritten, nil when it may be (or is not there to check).
    ///
    /// `access(W_OK)` answers for this process's user, but root passes it for any file, so the mode bits
    /// are checked too: a file nobody may write (0444) is left alone even by a depotd running as root,
    /// honouring what its owner asked for. (The atomic rename needs only the directory to be writable,
    /// so without this check a read-only file would be replaced silently.)
    func readOnlyMode(of path: String) async -> FileMode? {
        await thread.run { () -> FileMode? in
            guard let mode = FileMode(ofPath: path) else { return nil }
            return access(path, W_OK) != 0 || mode.hasNoWriteBit ? mode : nil
        }
    }
}
