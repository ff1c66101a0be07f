/// Events for one consumer, which waits for the next of them or for a deadline, whichever comes first: a service's
/// loop that must also wake at a time of its own (a refresh due, a burst of file events settled). `post` never
/// blocks and may be called from any thread; the wait honours cancellation, so a graceful shutdown ends it.
public final class Inbox<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var waiter: CheckedContinuation<Void, Never>?
        /// The current wait was cancelled before its continuation was stored.
        var cancelled = false
    }

    private let state = Locked(State())

    public init() {}

    /// Adds `event` and wakes the consumer.
    public func post(_ event: Event) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.events.append(event)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The events posted since the last `take`, oldest first.
    public func take() -> [Event] {
        state.withLock { state in
            defer { state.events = [] }
            return state.events
        }
    }

    /// Returns once an event waits, `deadline` (when given) has passed on `clock`, or the task is cancelled.
    public func wait<C: Clock>(until deadline: C.Instant?, on clock: C) async {
        guard let deadline else { return await waitForEvent() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForEvent() }
            group.addTask { try? await clock.sleep(until: deadline, tolerance: nil) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns once an event waits, or the task is cancelled.
    private func waitForEvent() async {
        state.withLock { $0.cancelled = false }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.events.isEmpty, !state.cancelled else { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
