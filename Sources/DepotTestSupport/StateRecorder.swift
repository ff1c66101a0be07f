package import DepotCore

/// An observer that records every published state, for asserting exact sequences.
package final class StateRecorder: StateObserver {
    package let states = Condition<[PublishedState]>([])

    package init() {}

    package func stateDidChange(to state: PublishedState) {
        states.update { $0.append(state) }
    }

    /// The statuses in order, e.g. [.idle, .loading, .success].
    package var statuses: [LoadingState.Status] {
        states.value.map(\.state.status)
    }

    /// Waits until at least `count` states were recorded.
    @discardableResult
    package func waitForStates(_ count: Int) async -> [PublishedState] {
        await states.wait { $0.count >= count }
    }
}
