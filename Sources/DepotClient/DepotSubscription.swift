public import DepotWire

/// The states of one subscription, in order, starting with the state that was current when it began.
/// Ends when the connection closes.
public struct DepotSubscription: AsyncSequence, Sendable {
    public typealias Element = StateChange

    /// The subscription id the daemon gave.
    public let id: String
    /// Where its states start: the daemon run, the seq, whether it resumed.
    public let subscribed: Subscribed
    let changes: AsyncStream<StateChange>

    public func makeAsyncIterator() -> AsyncStream<StateChange>.Iterator {
        changes.makeAsyncIterator()
    }
}
