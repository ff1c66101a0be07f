import Dispatch

/// Runs blocking work (poll, recv) on a thread of its own rather than on one of Swift's few cooperative threads,
/// which other tests running at the same time need.
///
/// Not on `DispatchQueue.global()`: its threads are as few as the cores (libdispatch adds one only when the machine
/// looks idle), so on a loaded 2-core machine two tests blocked in a minute-long `poll` there held back every other
/// user of the global queue — an in-process server's cache among them — and three tests timed out waiting for a
/// server that could not answer. A serial queue of its own targets libdispatch's overcommitting pool, which always
/// starts a thread for it.
func offloaded<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "depot-test-blocking").async {
            continuation.resume(with: Result { try work() })
        }
    }
}
