import Dispatch

/// Runs blocking work (poll, recv) on a Dispatch thread rather than on one of Swift's few cooperative
/// threads, which other tests running at the same time need.
func offloaded<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
