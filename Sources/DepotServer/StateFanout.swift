public import DepotCore
import DepotRPC
import DepotWire
public import NIOCore
import Synchronization

/// Receives every state the repository publishes, encodes it once, and hands the bytes to the
/// subscriber groups on each event loop. It also keeps the current state and its bytes for reads.
///
/// `stateDidChange` runs under the repository's publication lock, so states arrive here in seq order and
/// are passed to each loop in that order.
public final class StateFanout: StateObserver {
    /// How many recent encodings are kept, so a mutation's response can reuse the bytes of the state it
    /// published even when a later mutation has already published another.
    private static let recentLimit = 4

    private struct Snapshot {
        var current: EncodedState?
        var recent: [EncodedState] = []
    }

    private let snapshot = Mutex(Snapshot())
    /// The run the states' seqs belong to, written into every State.
    let epoch: String
    private let groups: [SubscriberGroup]
    private let allocator = ByteBufferAllocator()
    private let nextSubscriptionNumber = Atomic<Int>(1)
    private let activeSubscriptions = Atomic<Int>(0)
    private let onSubscribersChanged: @Sendable (Int) -> Void
    /// How many times a state was encoded: once per published state, plus the rare re-encoding of an old one.
    private let encodings = Atomic<Int>(0)

    /// - Parameters:
    ///   - eventLoops: every loop connections may live on.
    ///   - onSubscribersChanged: called with the new number of active subscriptions whenever it changes.
    public init(eventLoops: [any EventLoop], epoch: String, onSubscribersChanged: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.groups = eventLoops.map(SubscriberGroup.init(eventLoop:))
        self.epoch = epoch
        self.onSubscribersChanged = onSubscribersChanged
    }

    /// Active subscriptions, across all connections.
    public var subscriberCount: Int {
        activeSubscriptions.load(ordering: .relaxed)
    }

    func subscriptionStarted() {
        onSubscribersChanged(activeSubscriptions.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    func subscriptionsEnded(_ count: Int) {
        onSubscribersChanged(activeSubscriptions.wrappingSubtract(count, ordering: .relaxed).newValue)
    }

    public func stateDidChange(to state: PublishedState) {
        let encoded = EncodedState(state, bytes: encode(state))
        snapshot.withLock { snapshot in
            snapshot.current = encoded
            snapshot.recent.append(encoded)
            if snapshot.recent.count > Self.recentLimit {
                snapshot.recent.removeFirst()
            }
        }
        // Every loop gets every state, even one with no subscribers now: a connection subscribing there reads
        // `current` and then receives whatever is posted after, so nothing is lost between the two.
        for group in groups {
            group.post(encoded)
        }
    }

    /// The current state and its bytes. The repository publishes its first state when the fan-out is
    /// added as an observer, so this is set before any connection can ask.
    var current: EncodedState {
        guard let current = snapshot.withLock({ $0.current }) else {
            preconditionFailure("StateFanout used before it was added to the repository as an observer")
        }
        return current
    }

    /// The bytes of `state`, reusing its encoding when it is recent, encoding it again otherwise.
    func encoded(_ state: PublishedState) -> ByteBuffer {
        let cached = snapshot.withLock { snapshot in
            snapshot.recent.last(where: { $0.seq == state.seq })?.bytes
        }
        return cached ?? encode(state)
    }

    /// The number of states encoded so far.
    var encodingCount: Int {
        encodings.load(ordering: .relaxed)
    }

    private func encode(_ state: PublishedState) -> ByteBuffer {
        encodings.add(1, ordering: .relaxed)
        return StateEncoder.encode(state, epoch: epoch, allocator: allocator)
    }

    /// The subscriber group of `eventLoop`.
    func group(for eventLoop: any EventLoop) -> SubscriberGroup {
        guard let group = groups.first(where: { $0.eventLoop === eventLoop }) else {
            preconditionFailure("StateFanout was not given the event loop \(eventLoop)")
        }
        return group
    }

    /// A new subscription id, unique within this daemon run.
    func makeSubscriptionID() -> String {
        "s\(nextSubscriptionNumber.wrappingAdd(1, ordering: .relaxed).oldValue)"
    }
}
