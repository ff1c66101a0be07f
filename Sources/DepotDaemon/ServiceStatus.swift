public import DepotCore

/// The one line `systemctl status depotd` shows: `success · 151 items · 3 subscribers · seq 42`, with a note
/// in front when something needs attention (a failed reload).
public struct ServiceStatus: Sendable, Equatable {
    public var state: PublishedState
    public var subscribers: Int
    /// Shown first, e.g. why the last reload failed; nil when all is well.
    public var note: String?

    public init(state: PublishedState, subscribers: Int, note: String? = nil) {
        self.state = state
        self.subscribers = subscribers
        self.note = note
    }

    public var text: String {
        var parts: [String] = []
        if let note {
            parts.append(note)
        }
        switch state.state {
        case .success(let items, let provenance):
            parts.append("success")
            parts.append(items.count == 1 ? "1 item" : "\(items.count) items")
            if provenance.origin == .cache {
                parts.append(provenance.stale ? "from the cache, stale" : "from the cache")
            }
        case .failure(let error):
            parts.append("failure: " + Self.shortened(error.message))
        case .idle, .loading:
            parts.append(state.state.status.rawValue)
        }
        parts.append(subscribers == 1 ? "1 subscriber" : "\(subscribers) subscribers")
        parts.append("seq \(state.seq)")
        return parts.joined(separator: " · ")
    }

    /// Status lines should stay short: long reasons are cut (the journal has them whole).
    static func shortened(_ text: String, limit: Int = 80) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
