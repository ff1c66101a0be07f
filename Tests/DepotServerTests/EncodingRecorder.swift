import NIOConcurrencyHelpers
import NIOPosix
import Synchronization

@testable import DepotServer

/// The tests' `EncodingObserver`: counts the fan-out's encodings — all, those of more than
/// `StateFrame.inlineEncodingLimit` items, and those of them that ran on an event loop — and, while its gate is
/// closed, holds the encodings on the CPU pool back, so a test sees what subscribers receive meanwhile.
final class EncodingRecorder: EncodingObserver {
    private let counts = Mutex((all: 0, large: 0, largeOnEventLoops: 0))
    /// 0 while the gate is open, 1 while closed.
    private let gate = ConditionLock(value: 0)
    private let held = Mutex(0)

    func encoded(items: Int) {
        let onEventLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
        counts.withLock { counts in
            counts.all += 1
            guard items > StateFrame.inlineEncodingLimit else { return }
            counts.large += 1
            if onEventLoop { counts.largeOnEventLoops += 1 }
        }
    }

    /// Returns at once while the gate is open, else when it opens, or after a minute at most, so a test that forgets
    /// to open it cannot hold the pool's thread for ever.
    func startingOffLoop() {
        held.withLock { $0 += 1 }
        defer { held.withLock { $0 -= 1 } }
        if gate.lock(whenValue: 0, timeoutSeconds: 60) {
            gate.unlock()
        }
    }

    /// The number of states encoded so far.
    var encodingCount: Int { counts.withLock { $0.all } }

    /// How many times a state of more than `StateFrame.inlineEncodingLimit` items was encoded in a form that holds
    /// them, and how many of those encodings ran on an event loop: none, as long as the subscriber groups and the
    /// methods see to it.
    var largeEncodingCounts: (all: Int, onEventLoops: Int) { counts.withLock { ($0.large, $0.largeOnEventLoops) } }

    /// The encodings held at the gate now.
    var waiting: Int { held.withLock { $0 } }

    func close() {
        gate.lock()
        gate.unlock(withValue: 1)
    }

    func open() {
        gate.lock()
        gate.unlock(withValue: 0)
    }
}
