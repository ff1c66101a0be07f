import Dispatch

/// A value that only one serial dispatch queue reads and changes — a shared pipeline's evaluation, on its queue — as
/// NIO's `NIOLoopBoundBox` is for an event loop's: no lock, since the queue runs one piece of work at a time, and every
/// access checks that it runs there.
final class QueueConfined<Value>: @unchecked Sendable {
    private let queue: DispatchQueue
    private var value: Value

    /// Confines `value` to `queue`; made before any work on the queue touches it.
    init(_ value: Value, to queue: DispatchQueue) {
        self.value = value
        self.queue = queue
    }

    /// Runs `body` with the value; only on the queue.
    func withValue<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(&value)
    }
}
