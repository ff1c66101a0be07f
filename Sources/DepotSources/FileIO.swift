import DepotPlatform
import Dispatch

/// Runs blocking file I/O on a dispatch queue, so that it never occupies a thread of Swift's cooperative pool.
enum FileIO {
    private static let queue = DispatchQueue(label: "depot.file-io")

    static func read(_ path: String) async throws(SystemError) -> [UInt8] {
        try await offload { () throws(SystemError) in try Files.readAll(path) }
    }

    static func replace(_ path: String, with bytes: [UInt8]) async throws(SystemError) {
        try await offload { () throws(SystemError) in try Files.replaceAtomically(path, with: bytes) }
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
