import DepotPlatform

/// The connection limits in force, which a reload may change while the server runs: one immutable value, swapped
/// whole (as `AccessControl` swaps its policy), so a reader never sees half old, half new limits. Every
/// subscription's queue, the replay ring (at the next state), the memory bounds, and every connection's
/// pending-request and subscription limits follow a change at once; the message-size limit applies to connections
/// opened after it (a connection's line decoder keeps its own).
///
/// A decision that weighs several limits reads `current` once; a single limit reads as a member
/// (`limits.maxSubscriptions`), from the value in force at that moment.
@dynamicMemberLookup
final class LiveLimits: Sendable {
    private let value: Locked<ConnectionLimits>

    init(_ limits: ConnectionLimits) {
        value = Locked(limits)
    }

    /// The limits in force, whole.
    var current: ConnectionLimits {
        value.withLock { $0 }
    }

    subscript<Limit>(dynamicMember limit: KeyPath<ConnectionLimits, Limit>) -> Limit {
        value.withLock { $0[keyPath: limit] }
    }

    /// Puts `limits` in force, all at once.
    func update(_ limits: ConnectionLimits) {
        value.withLock { $0 = limits }
    }
}
