/// One of the three systems a run compares: depotd, the floor, Redis. The scenarios drive each the same
/// way, with the same client code; only the bytes sent differ.
public protocol SystemUnderTest: AnyObject {
    /// "depotd", "floor", "Redis".
    var name: String { get }
    var process: ManagedProcess { get }
    var socketPath: String { get }
    var framing: Framing { get }

    /// What a subscriber sends to start receiving states.
    var subscribeMessage: [UInt8] { get }
    /// What subscriber `index` of a fan-out sends (the same for all, unless subscribers differ, as with pipelines).
    func subscribeMessage(subscriber index: Int) -> [UInt8]
    /// The seq of the current state a new subscriber receives first (depotd), or nil when the answer to its
    /// subscription is one message without a seq.
    var subscribedSeq: Int? { get }

    /// Makes the collection (or the payload) `items` items of the shared collection, outside any measurement.
    func prepare(items: Int) throws

    /// Unmeasured preparation of a fan-out round whose state holds `items` items (`tracker` and `subscribers`
    /// for a system that must bring its subscribers somewhere first). Returns the seq to measure and the seq
    /// after which the round is over.
    func prepareRound(items: Int, tracker: SubscriberTracker, subscribers: Int) throws -> (measured: Int, settled: Int)
    /// Sends what makes the state change (the measured clock starts just before).
    func trigger() throws
    /// Reads the trigger's answer, if it has one.
    func finishRound() throws

    /// The request for an RPC client: `state`, or `get` of one item (Redis: GET of a value of the same size).
    func request(_ method: RPCMethodUnderTest) -> [UInt8]
}

/// The RPC methods measured.
public enum RPCMethodUnderTest: String, Sendable, Codable {
    case state
    case get
}

extension SystemUnderTest {
    /// Arms `tracker` to wait until `count` new subscribers hold the current state: depotd answers `subscribe` and
    /// then sends the current state, two messages; the others answer with one. The answer names the current seq too,
    /// so counting by seq would let a round start while a large current state is still on its way to them — and
    /// the state the round publishes could then find their sockets full.
    func armForNewSubscribers(_ tracker: SubscriberTracker, count: Int) {
        tracker.arm(messages: subscribedSeq == nil ? 1 : 2, count: count)
    }

    public func subscribeMessage(subscriber index: Int) -> [UInt8] {
        subscribeMessage
    }
}
