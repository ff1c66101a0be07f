public import DepotCore

/// An observer that records every published state, for asserting exact sequences.
public final class StateRecorder: StateObserver {
    public let states = Condition<[PublishedState]>([])

    public init() {}

    public func stateDidChange(to state: PublishedState) {
        states.update { $0.append(state) }
    }

    /// The statuses in order, e.g. [.idle, .loading, .success].
    public var statuses: [LoadingState.Status] {
        states.value.map(\.state.status)
    }

    /// Waits until at least `count` states were recorded.
    @discardableResult
    public func waitForStates(_ count: Int) async -> [PublishedState] {
        await states.wait { $0.count >= count }
    }
}
