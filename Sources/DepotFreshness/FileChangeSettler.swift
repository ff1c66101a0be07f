/// When to look at the watched file again after it changed, as a value: a burst of changes is settled — the file is
/// checked once no change has come for `settle`, or `longest` after the first, so endless writes still show — and
/// never while it is being written (after a write in place, the file is checked once it is closed).
///
/// Told of each change, and asked when the timer fires, it says: check the file now, wait until an instant, or wait
/// for news.
package struct FileChangeSettler<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    package enum Action: Sendable, Equatable {
        /// Look at the file now (and refresh from it), then say `checked`.
        case check
        /// Hold the timer until this instant, then say `timerFired`.
        case wait(until: Instant)
        /// Hold no timer: nothing changed, or the file is being written.
        case idle
    }

    /// How long no change must come before the file is checked.
    package let settle: Duration
    /// How long after the first change of a burst the file is checked however many more come.
    package let longest: Duration
    /// The first change not yet checked, and the last.
    package private(set) var pending: (first: Instant, last: Instant)?
    /// True between a write in place (or a creation) and its close.
    package private(set) var writing = false

    package static var defaultSettle: Duration { .milliseconds(100) }
    package static var defaultLongest: Duration { .seconds(1) }

    package init(settle: Duration = Self.defaultSettle, longest: Duration = Self.defaultLongest) {
        self.settle = settle
        self.longest = longest
    }

    package mutating func observed(_ change: FileChange, at now: Instant) -> Action {
        writing = change == .writing
        pending = (pending?.first ?? now, now)
        return action(at: now)
    }

    /// What to do at `now`: the timer fired, or events were handled.
    package func action(at now: Instant) -> Action {
        guard let due else { return .idle }
        return due <= now ? .check : .wait(until: due)
    }

    /// When the file is to be checked; nil while nothing changed or it is being written.
    package var due: Instant? {
        guard !writing, let pending else { return nil }
        return min(pending.last.advanced(by: settle), pending.first.advanced(by: longest))
    }

    /// The file was looked at: the changes up to now are dealt with.
    package mutating func checked() {
        pending = nil
    }
}
