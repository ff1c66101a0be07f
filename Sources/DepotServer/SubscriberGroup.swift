import DepotPlatform
import DepotWire
import NIOCore
import Synchronization

/// The connections with active subscriptions that live on one event loop, and the states published for them
/// that the loop has not yet handed out.
///
/// Published states wait in the group's mailbox; one task on the loop hands them to the connections, so a
/// burst of states costs one thread hop, not one per state. A state published while that task is going
/// through the connections is handed, together with the earlier ones, to every connection it has not reached
/// yet: those write both in one go (one syscall, one wake-up of the reader) instead of one after the other
/// — `load` publishes `loading` and, soon after, `success`. Every connection still receives every state, in
/// seq order; a connection ignores a state it already has. The connections are touched only on `eventLoop`.
final class SubscriberGroup: Sendable {
    let eventLoop: any EventLoop
    private let connections: NIOLoopBoundBox<[ObjectIdentifier: ConnectionHandler]>
    private let mailbox = Locked(Mailbox())

    private struct Mailbox {
        var states: [StateFrame] = []
        /// True from the moment a delivery task is scheduled until it finds the mailbox empty.
        var isDeliveryScheduled = false
    }

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

    /// Queues `state` for this loop's connections; called in seq order, from any thread.
    func post(_ state: StateFrame) {
        let mustSchedule = mailbox.withLock { mailbox in
            mailbox.states.append(state)
            defer { mailbox.isDeliveryScheduled = true }
            return !mailbox.isDeliveryScheduled
        }
        if mustSchedule {
            eventLoop.execute { self.deliverPosted() }
        }
    }

    /// Ends the subscriptions of shared pipeline `number` on this loop's connections, after the states posted
    /// before this call (the loop runs its tasks in order, and those states were handed out by an earlier one).
    func endPipeline(_ number: Int, reason: String) {
        eventLoop.execute {
            for connection in self.connections.value.values {
                connection.pipelineEnded(number, reason: reason)
            }
        }
    }

    /// Ends the subscriptions of this loop's connections whose peer `mayRead` refuses, at once, telling them why.
    func endSubscriptions(unless mayRead: @escaping @Sendable (PeerCredentials?) -> Bool, reason: String) {
        eventLoop.execute {
            for connection in self.connections.value.values where !mayRead(connection.peer) {
                connection.endAllSubscriptions(reason: reason)
            }
        }
    }

    /// The subscriptions of this loop's connections, gathered on the loop and handed to `done` there.
    func gatherSubscriptions(_ done: @escaping @Sendable ([DepotStatistics.Subscription]) -> Void) {
        eventLoop.execute {
            done(self.connections.value.values.flatMap(\.subscriptionStatistics))
        }
    }

    /// Runs on `eventLoop`: hands every posted state to every connection, until the mailbox stays empty. `taken` are
    /// states taken from the mailbox before, whose items were being encoded.
    private func deliverPosted(_ taken: [StateFrame]? = nil) {
        var states = taken ?? takePosted(endingDeliveryIfEmpty: true)
        while !states.isEmpty {
            if encodeItemsOffLoop(states) { return }
            // States posted during this pass reach the connections not yet served in it at once, and the
            // ones already served in the next pass.
            var postedDuringPass: [StateFrame] = []
            // Connections whose subscriptions are all in delta mode first: a snapshot-mode one may have to wait
            // for a large state to be encoded, and must not hold up those that need only a delta.
            let all = connections.value.values
            for connection in all.filter({ !$0.wantsSnapshots }) + all.filter(\.wantsSnapshots) {
                let newer = takePosted(endingDeliveryIfEmpty: false, unlessItemsToEncode: true)
                states += newer
                postedDuringPass += newer
                connection.deliver(states)
            }
            states = postedDuringPass.isEmpty ? takePosted(endingDeliveryIfEmpty: true) : postedDuringPass
        }
    }

    /// When a connection would encode the items of one of `states` on the loop (a large success its snapshot-mode
    /// subscriptions need in full, or its delta-mode ones cannot send as a delta), hands `states` to the connections that
    /// need no such form now, has the forms encoded on the blocking pool, once for all loops, and then delivers
    /// `states` to every connection from the loop again; returns true then. Delivery stays scheduled meanwhile, so
    /// states posted later wait behind these and every connection still receives them in seq order.
    private func encodeItemsOffLoop(_ states: [StateFrame]) -> Bool {
        let all = Array(connections.value.values)
        var needed: [ObjectIdentifier: (state: StateFrame, forms: Set<StateFrame.FullForm>)] = [:]
        var waiting = Set<ObjectIdentifier>()
        for connection in all {
            let encodings = connection.fullFormsToEncode(of: states)
            guard !encodings.isEmpty else { continue }
            waiting.insert(ObjectIdentifier(connection))
            for (state, form) in encodings {
                needed[ObjectIdentifier(state), default: (state, [])].forms.insert(form)
            }
        }
        // Another loop's group may have had them encoded since the connections were asked: nothing to wait for then.
        let toEncode = needed.values.filter { entry in entry.forms.contains(where: entry.state.wouldEncode) }
        guard !toEncode.isEmpty else { return false }
        for connection in all where !waiting.contains(ObjectIdentifier(connection)) {
            connection.deliver(states)
        }
        let remaining = Atomic(toEncode.count)
        for entry in toEncode {
            entry.state.encode(entry.forms) {
                guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
                self.eventLoop.execute { self.deliverPosted(states) }
            }
        }
        return true
    }

    /// Empties the mailbox. When it is already empty and `endingDeliveryIfEmpty`, the delivery task ends: the
    /// next post schedules a new one.
    /// `unlessItemsToEncode`: takes nothing while a posted state's items may still have to be encoded in full; the
    /// next pass sees to that first.
    private func takePosted(endingDeliveryIfEmpty: Bool, unlessItemsToEncode: Bool = false) -> [StateFrame] {
        mailbox.withLock { mailbox in
            if unlessItemsToEncode, mailbox.states.contains(where: { $0.wouldEncode(.snapshot) || $0.wouldEncode(.countedItems) }) {
                return []
            }
            if mailbox.states.isEmpty {
                if endingDeliveryIfEmpty { mailbox.isDeliveryScheduled = false }
                return []
            }
            defer { mailbox.states = [] }
            return mailbox.states
        }
    }
}
