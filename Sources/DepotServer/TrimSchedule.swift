/// When depotd asks the allocator to give its free memory back (`FreedMemory.trim`), decided once a second from what
/// happened in that second. A trim walks every heap while allocations wait, so it is not done on every tick; but
/// memory that connections let go of stays in the heaps until one is done, so it is not left to chance either:
/// - after a burst (connections let go of `burstBytes` or more in one second: a user cut off at its memory bound,
///   say) it trims every second for `burstTicks` seconds, while the rest of the burst is being freed;
/// - once churn settles (connections closed since the last trim, and a second with none opened or closed) it
///   trims once, so a thousand clients come and gone leave the RSS where it was;
/// - under churn that never settles, at most every `churnTicks` seconds.
struct TrimSchedule: Equatable, Sendable {
    /// What happened in one second.
    struct Tick: Equatable, Sendable {
        /// Bytes the connections' books let go of.
        var releasedBytes: Int
        /// Connections opened and closed.
        var opened: Int
        var closed: Int
    }

    static let burstBytes = 16 << 20
    static let burstTicks = 10
    static let churnTicks = 60

    /// Seconds left in which to trim after a burst.
    private(set) var burstLeft = 0
    /// Connections closed since the last trim, and the seconds since the first of them.
    private(set) var closedSinceTrim = 0
    private(set) var ticksSinceFirstClose = 0

    /// Takes one second's events; true when the allocator should be trimmed now.
    mutating func tick(_ tick: Tick) -> Bool {
        if tick.releasedBytes >= Self.burstBytes {
            burstLeft = Self.burstTicks
        }
        if closedSinceTrim > 0 {
            ticksSinceFirstClose += 1
        }
        closedSinceTrim += tick.closed
        let settled = closedSinceTrim > 0 && tick.opened == 0 && tick.closed == 0
        let churnedLong = closedSinceTrim > 0 && ticksSinceFirstClose >= Self.churnTicks
        let trim = burstLeft > 0 || settled || churnedLong
        if burstLeft > 0 {
            burstLeft -= 1
        }
        if trim {
            closedSinceTrim = 0
            ticksSinceFirstClose = 0
        }
        return trim
    }
}
