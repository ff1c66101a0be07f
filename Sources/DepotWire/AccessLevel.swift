/// What a caller may do, decided from its credentials on every call: `read` (the state, items, subscriptions,
/// the document), `write` (load, remove, put, patch, apply), `admin` (wipe, and what changes stored pipelines). Each
/// level includes those below it; the changing methods may also be granted one by one.
public enum AccessLevel: String, Sendable, CaseIterable, Comparable {
    case read, write, admin

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .admin: 2
        }
    }

    public static func < (lhs: AccessLevel, rhs: AccessLevel) -> Bool {
        lhs.rank < rhs.rank
    }
}
