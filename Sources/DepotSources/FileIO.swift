import DepotPlatform
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking file I/O on a dispatch queue, so that it never occupies a thread of Swift's cooperative pool.
enum FileIO {
    private static let queue = DispatchQueue(label: "depot.file-io")

    static func read(_ path: String) async throws(SystemError) -> [UInt8] {
        try await offload { () throws(SystemError) in try Files.readAll(path) }
    }

    /// The file's bytes, with its stamp as the read began.
    static func readStamped(_ path: String) async throws(SystemError) -> (bytes: [UInt8], stamp: FileStamp) {
        try await offload { () throws(SystemError) in try Files.readAllStamped(path) }
    }

    static func stamp(of path: String) async -> FileStamp? {
        let stamp = try? await offload { () throws(SystemError) -> FileStamp? in FileStamp.of(path) }
        return stamp ?? nil
    }

    /// The mode of `path` when it must not be rewritten, nil when it may be (or is not there to check).
    ///
    /// `access(W_OK)` answers for this process's user, but root passes it for any file, so the mode bits
    /// are checked too: a file nobody may write (0444) is left alone even by a depotd running as root,
    /// honouring what its owner asked for. (The atomic rename needs only the directory to be writable,
    /// so without this check a read-only file would be replaced silently.)
    static func readOnlyMode(of path: String) async -> FileMode? {
        let result = try? await offload { () throws(SystemError) -> FileMode? in
            guard let mode = FileMode(ofPath: path) else { return nil }
            return access(path, W_OK) != 0 || mode.hasNoWriteBit ? mode : nil
        }
        return result ?? nil
    }

    private static func offload<Value: Sendable>(_ work: @escaping @Sendable () throws(SystemError) -> Value) async throws(SystemError) -> Value {
        let result: Result<Value, SystemError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(SystemError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
