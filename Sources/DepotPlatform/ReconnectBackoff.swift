/// How long to wait before the next connection attempt: exponential with full jitter (a uniformly random delay up
/// to a window that doubles with every failed attempt, up to a cap). The randomness is the point: a fleet whose
/// database restarts reconnects spread over the window rather than all in the same instant (and so do the watchers
/// of a restarted depotd).
public struct ReconnectBackoff: Sendable, Equatable {
    /// The window of the first attempt after a loss.
    public var firstWindow: Duration
    /// The largest window.
    public var cap: Duration

    public static let standard = ReconnectBackoff(firstWindow: .seconds(1), cap: .seconds(30))

    public init(firstWindow: Duration, cap: Duration) {
        precondition(firstWindow > .zero && cap >= firstWindow, "a backoff needs 0 < firstWindow <= cap")
        self.firstWindow = firstWindow
        self.cap = cap
    }

    /// The window after `failures` failed attempts in a row (0: the first attempt after a loss).
    public func window(afterFailures failures: Int) -> Duration {
        var window = firstWindow
        for _ in 0..<min(failures, 32) where window < cap {
            window *= 2
        }
        return min(window, cap)
    }

    /// A delay drawn uniformly from the window after `failures` failures.
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let window = window(afterFailures: failures)
        return .milliseconds(Int64.random(in: 0...max(0, window.wholeMilliseconds), using: &generator))
    }
}
