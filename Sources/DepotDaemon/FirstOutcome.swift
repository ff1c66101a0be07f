import DepotCore
import DepotPlatform

/// Calls `action` once, at the first success or failure published: the first state that says something about
/// the items (the cached list at start-up, or the start-up load's outcome). READY waits for it.
final class FirstOutcome: StateObserver {
    private let pending: Locked<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        pending = Locked(action)
    }

    func stateDidChange(to state: PublishedState) {
        switch state.state.status {
        case .success, .failure:
            let action = pending.withLock { pending in
                defer { pending = nil }
                return pending
            }
            action?()
        case .idle, .loading:
            break
        }
    }
}
