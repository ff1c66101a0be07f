import NIOCore

/// The connections with active subscriptions that live on one event loop.
///
/// The fan-out hands each published state to a group with one task on its loop, and the group passes it
/// to its connections there: one thread hop per loop per state, however many subscribers there are.
/// The connections are touched only on `eventLoop`.
final class SubscriberGroup: Sendable {
    let eventLoop: any EventLoop
    private let connections: NIOLoopBoundBox<[ObjectIdentifier: ConnectionHandler]>

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.connections = .makeBoxSendingValue([:], eventLoop: eventLoop)
    }

    func add(_ connection: ConnectionHandler) {
        connections.value[ObjectIdentifier(connection)] = connection
    }

    func remove(_ connection: ConnectionHandler) {
        connections.value[ObjectIdentifier(connection)] = nil
    }

    /// Runs on `eventLoop`.
    func deliver(_ state: EncodedState) {
        for connection in connections.value.values {
            connection.deliver(state)
        }
    }
}
