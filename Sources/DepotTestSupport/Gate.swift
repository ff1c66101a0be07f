import DepotPlatform

/// A one-shot latch for tests: tasks `wait()` until someone calls `open()`. Lets a test hold a source call
/// "in flight" for exactly as long as it needs, instead of guessing with sleeps.
package final class Gate: Sendable {
    private enum Phase {
        case closed([CheckedContinuation<Void, Never>])
        case open
    }

    private let phase = Locked(Phase.closed([]))

    package init() {}

    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = phase.withLock { phase -> Bool in
                switch phase {
                case .open:
                    return true
                case .closed(var waiters):
                    waiters.append(continuation)
                    phase = .closed(waiters)
                    return false
                }
            }
            if resumeNow { continuation.resume() }
        }
    }

    package func open() {
        let waiters = phase.withLock { phase -> [CheckedContinuation<Void, Never>] in
            guard case .closed(let waiters) = phase else { return [] }
            phase = .open
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
