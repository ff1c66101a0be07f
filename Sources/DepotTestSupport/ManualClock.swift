import DepotPlatform

/// A clock whose time moves only when the test says (`advance(by:)`): sleepers wake when it passes their deadline, or
/// throw `CancellationError` when cancelled. `sleepers` lists the deadlines slept until now, so a test waits for the
/// code under test to arm its timer instead of guessing how long that takes.
package final class ManualClock: Clock, Sendable {
    /// An instant: how far the clock has advanced since it was made.
    package struct Instant: InstantProtocol, CustomStringConvertible {
        package var offset: Duration

        package init(offset: Duration) {
            self.offset = offset
        }

        package func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        package func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        package static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        package var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        let number: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextNumber = 0
        /// Sleeps cancelled before their continuation was stored.
        var cancelled: Set<Int> = []
    }

    private let state = Locked(State())
    /// The deadlines of the sleeps under way, updated whenever one starts or ends.
    package let sleepers = Condition<[Instant]>([])

    package init() {}

    package var now: Instant {
        state.withLock { $0.now }
    }

    package var minimumResolution: Duration { .zero }

    /// The instant `duration` after the clock's start.
    package static func at(_ duration: Duration) -> Instant {
        Instant(offset: duration)
    }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let number = state.withLock { state in
            defer { state.nextNumber += 1 }
            return state.nextNumber
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(number) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(number: number, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    publishSleepers()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.number == number }) else {
                    state.cancelled.insert(number)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            publishSleepers()
        }
    }

    /// Moves the time on by `duration` and wakes every sleeper whose deadline it reaches, earliest first.
    package func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken
        }
        for sleeper in woken {
            sleeper.continuation.resume()
        }
        publishSleepers()
    }

    /// Moves the time on to `instant` (nothing when it has passed).
    package func advance(to instant: Instant) {
        advance(by: max(.zero, now.duration(to: instant)))
    }

    private func publishSleepers() {
        let deadlines = state.withLock { $0.sleepers.map(\.deadline) }
        sleepers.update { $0 = deadlines }
    }
}
