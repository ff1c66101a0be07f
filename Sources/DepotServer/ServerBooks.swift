import DepotPlatform

/// What the server counts across all its loops — the connections open (`ConnectionCounter`), the limits reached
/// (`LimitCounters`), what each user holds in memory and the unfinished lines of all (`ClientMemory`) — as one value
/// under one lock: every loop's connections change their part, and `stats` reads them.
final class ServerBooks: Sendable {
    struct Value {
        var connections = ConnectionCounter.Counts()
        var limitsHit = [Int](repeating: 0, count: LimitCounters.Limit.allCases.count)
        var memory = ClientMemory.Books()
    }

    private let value = Locked(Value())

    init() {}

    /// Reads or changes the books; `body` must be quick (it holds every loop's counting).
    func withValue<Result>(_ body: (inout Value) -> Result) -> Result {
        value.withLock(body)
    }
}
