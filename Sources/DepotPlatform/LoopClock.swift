public import NIOCore

/// The continuous clock, whose sleeps are timers of one event loop: a task running on that loop (the `SourceLoop`'s)
/// sleeps without waking another thread, where a sleep on `ContinuousClock` arms a timer of the global executor's and
/// wakes its thread to arm it and again to disarm it — twice a PostgreSQL query, for its time limit.
public struct LoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    private let eventLoop: any EventLoop

    public init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    public var now: Instant { .now }

    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    /// Sleeps until `deadline`; throws `CancellationError` as soon as the task is cancelled (the timer is cancelled).
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        // The timer, once armed: a cancellation that comes first cancels it as soon as it is.
        let armed = Eventual<Scheduled<Void>>()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let timer = eventLoop.scheduleTask(in: TimeAmount(max(.zero, Instant.now.duration(to: deadline)))) { continuation.resume() }
                timer.futureResult.whenFailure { _ in continuation.resume(throwing: CancellationError()) }
                armed.resolve(timer)
            }
        } onCancel: {
            armed.whenResolved { $0.cancel() }
        }
    }
}
