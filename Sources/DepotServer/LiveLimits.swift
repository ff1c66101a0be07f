/// The connection limits in force, which a reload may change while the server runs: one immutable value in the
/// server's `LiveSettings`, swapped whole, so a reader never sees half old, half new limits. Every
/// subscription's queue, the replay ring (at the next state), the memory bounds, and every connection's
/// pending-request and subscription limits follow a change at once; the message-size limit applies to connections
/// opened after it (a connection's line decoder keeps its own).
///
/// A decision that weighs several limits reads `current` once; a single limit reads as a member
/// (`limits.maxSubscriptions`), from the value in force at that moment.
@dynamicMemberLookup
final class LiveLimits: Sendable {
    private let settings: LiveSettings

    /// The limits of `settings`.
    init(_ settings: LiveSettings) {
        self.settings = settings
    }

    /// Limits of their own, `limits` at first.
    convenience init(_ limits: ConnectionLimits) {
        self.init(LiveSettings(limits: limits))
    }

    /// The limits in force, whole.
    var current: ConnectionLimits {
        settings.read(\.limits)
    }

    subscript<Limit>(dynamicMember limit: KeyPath<ConnectionLimits, Limit>) -> Limit {
        settings.read(\.limits)[keyPath: limit]
    }

    /// Puts `limits` in force, all at once.
    func update(_ limits: ConnectionLimits) {
        settings.replace(\.limits, with: limits)
    }
}
