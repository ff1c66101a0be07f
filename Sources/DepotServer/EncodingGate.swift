import NIOConcurrencyHelpers

/// Holds back the encodings of large states on the blocking pool while closed, so a test can see what subscribers
/// receive while one is under way. Always open in the daemon: passing an open gate costs one uncontended lock.
final class EncodingGate: Sendable {
    /// 0 while open, 1 while closed.
    private let state = ConditionLock(value: 0)
    private let held = NIOLockedValueBox(0)

    /// The encodings waiting at the gate now.
    var waiting: Int { held.withLockedValue { $0 } }

    /// Called on the blocking pool before an encoding: returns at once while the gate is open, else when it opens,
    /// or after a minute at most, so a test that forgets to open it cannot hold the pool's thread for ever.
    func passThrough() {
        held.withLockedValue { $0 += 1 }
        defer { held.withLockedValue { $0 -= 1 } }
        if state.lock(whenValue: 0, timeoutSeconds: 60) {
            state.unlock()
        }
    }

    func close() {
        state.lock()
        state.unlock(withValue: 1)
    }

    func open() {
        state.lock()
        state.unlock(withValue: 0)
    }
}
