/// Receives every state the repository publishes, in `seq` order, starting with the state that is
/// current when the observer is added.
///
/// Called synchronously by the publishing task while the repository holds its publication lock, which
/// is what guarantees the order: an observer must return quickly, must not block, and must not call
/// back into the repository's mutations. Reading `Repository.current` from inside is allowed.
public protocol StateObserver: Sendable {
    func stateDidChange(to state: PublishedState)
}
