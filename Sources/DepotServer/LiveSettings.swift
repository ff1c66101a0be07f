import DepotPlatform
import DepotWire

/// What a reload replaces while the server runs — the connection limits and the access policy — as one value under
/// one lock, each part swapped whole, so a reader never sees half old, half new limits. `LiveLimits` and
/// `AccessControl` read and replace their part.
final class LiveSettings: Sendable {
    struct Value: Sendable {
        var limits: ConnectionLimits
        var access: AccessPolicy
    }

    private let value: Locked<Value>

    init(limits: ConnectionLimits = ConnectionLimits(), access: AccessPolicy = .open) {
        value = Locked(Value(limits: limits, access: access))
    }

    /// The part `keyPath` names, as it is now.
    func read<Part>(_ keyPath: KeyPath<Value, Part>) -> Part {
        value.withLock { $0[keyPath: keyPath] }
    }

    /// Puts `part` in force in place of the one `keyPath` names, all at once.
    func replace<Part>(_ keyPath: WritableKeyPath<Value, Part>, with part: Part) {
        value.withLock { $0[keyPath: keyPath] = part }
    }
}
