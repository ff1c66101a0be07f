import DepotPlatform
import Logging

/// Changing the repository's state: every change is a transition of `RepositoryState` under the one lock, whose
/// published states go to the observers, in order, under that lock; reads see the result without taking it.
extension Repository {
    /// Carries out a transition of the state, which says what to publish and what comes of it: the states go to every
    /// observer, in order, under the lock.
    func transition<Value>(_ body: (inout RepositoryState, WriteRules) -> (Value, [PublishedState])) -> Value {
        core.withLock { core in
            let (value, published) = body(&core.state, core.rules)
            var seen = Reads(core.state)
            for state in published {
                // An observer that reads sees the state it is told of.
                seen.latest = state
                reads.withLock { [seen] in $0 = seen }
                logger.debug("published \(state.state.status.rawValue)", metadata: ["seq": "\(state.seq)"])
                for observer in core.observers {
                    observer.stateDidChange(to: state)
                }
            }
            reads.withLock { $0 = Reads(core.state) }
            return value
        }
    }

    /// A transition that publishes one state.
    @discardableResult
    func publishing(_ body: (inout RepositoryState) -> PublishedState) -> PublishedState {
        transition { state, _ in
            let published = body(&state)
            return (published, [published])
        }
    }

    /// A transition that publishes a state or nothing.
    @discardableResult
    func publishingIfAny(_ body: (inout RepositoryState) -> PublishedState?) -> PublishedState? {
        transition { state, _ in
            let published = body(&state)
            return (published, published.map { [$0] } ?? [])
        }
    }

    /// A transition that publishes several states; the last, or the current one when none.
    @discardableResult
    func publishingEach(_ body: (inout RepositoryState) -> [PublishedState]) -> PublishedState {
        transition { state, _ in
            let published = body(&state)
            return (published.last ?? state.latest, published)
        }
    }

    /// A look at the state, under the lock.
    func reading<Value>(_ body: (RepositoryState) -> Value) -> Value {
        core.withLock { body($0.state) }
    }
}
