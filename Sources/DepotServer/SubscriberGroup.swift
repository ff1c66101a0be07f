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
/// seq order; a connection ignores a state it already has. A connection that would have to encode a large state's
/// items on the loop waits instead, with the states after it, while the CPU pool encodes them; the others
/// go on receiving states meanwhile. A connection whose socket is full and whose subscriptions are all in snapshot mode
/// is parked (`ParkedConnections`): it holds its large states unencoded until it takes more, keeping only those its
/// queue would. One that does not read costs no encoding per state, no memory for encodings it would drop unread, and
/// no work per state: the group's passes skip it. The connections are touched only on `eventLoop`.
final class SubscriberGroup: Sendable {
    let eventLoop: any EventLoop
    private let limits: LiveLimits
    /// Every connection of the group.
    private let connections: NIOLoopBoundBox<[ObjectIdentifier: ConnectionSubscriptions]>
    /// The connections not parked: those a pass hands states to.
    private let active: NIOLoopBoundBox<[ObjectIdentifier: ConnectionSubscriptions]>
    private let parked: NIOLoopBoundBox<ParkedConnections>
    private let mailbox = Locked(Mailbox())
    /// Connections waiting for a large state's full form to be encoded, with the states they are to get then.
    private let waiting: NIOLoopBoundBox<[ObjectIdentifier: [StateFrame]]>
    /// The full forms this group has asked the CPU pool for and not yet heard back about.
    private let requested: NIOLoopBoundBox<Set<Requested>>

    private struct Requested: Hashable {
        let state: ObjectIdentifier
        let form: StateFrame.FullForm

        init(state: StateFrame, form: StateFrame.FullForm) {
            self.state = ObjectIdentifier(state)
            self.form = form
        }
    }

    private struct Mailbox {
        var states: [StateFrame] = []
        /// True from the moment a delivery task is scheduled until it finds the mailbox empty.
        var isDeliveryScheduled = false
    }

    init(eventLoop: any EventLoop, limits: LiveLimits) {
        self.eventLoop = eventLoop
        self.limits = limits
        self.connections = .makeBoxSendingValue([:], eventLoop: eventLoop)
        self.active = .makeBoxSendingValue([:], eventLoop: eventLoop)
        self.parked = .makeBoxSendingValue(ParkedConnections(), eventLoop: eventLoop)
        self.waiting = .makeBoxSendingValue([:], eventLoop: eventLoop)
        self.requested = .makeBoxSendingValue([], eventLoop: eventLoop)
    }

    func add(_ connection: ConnectionSubscriptions) {
        connections.value[ObjectIdentifier(connection)] = connection
        active.value[ObjectIdentifier(connection)] = connection
    }

    func remove(_ connection: ConnectionSubscriptions) {
        let key = ObjectIdentifier(connection)
        connections.value[key] = nil
        active.value[key] = nil
        waiting.value[key] = nil
        parked.value.remove(key)
    }

    /// How many of the group's connections are parked, for stats.
    var parkedCount: Int { parked.value.count }

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
    func gatherSubscriptions() -> EventLoopFuture<(subscriptions: [DepotStatistics.Subscription], parked: Int)> {
        eventLoop.submit {
            (self.connections.value.values.flatMap(\.subscriptionStatistics), self.parkedCount)
        }
    }

    /// Runs on `eventLoop`: hands every posted state to every connection not parked, until the mailbox stays empty.
    private func deliverPosted() {
        var states = takePosted(endingDeliveryIfEmpty: true)
        while !states.isEmpty {
            // States posted during this pass reach the connections not yet served in it at once, and the
            // ones already served in the next pass.
            var postedDuringPass: [StateFrame] = []
            var toEncode = EncodingsNeeded()
            // Connections whose subscriptions are all in delta mode first: they need no large state's snapshot.
            let all = active.value.values
            for connection in all.filter({ !$0.wantsSnapshots }) + all.filter(\.wantsSnapshots) {
                let newer = takePosted(endingDeliveryIfEmpty: false)
                states += newer
                postedDuringPass += newer
                hand(states, to: connection, encodings: &toEncode)
            }
            encodeOffLoop(toEncode)
            states = postedDuringPass.isEmpty ? takePosted(endingDeliveryIfEmpty: true) : postedDuringPass
        }
    }

    /// The full forms of large states that connections wait for, by state, gathered in one pass so that each is
    /// asked for once however many connections need it.
    private struct EncodingsNeeded {
        var byState: [ObjectIdentifier: (state: StateFrame, forms: Set<StateFrame.FullForm>)] = [:]

        mutating func add(_ encodings: [(state: StateFrame, form: StateFrame.FullForm)]) {
            for (state, form) in encodings {
                byState[ObjectIdentifier(state), default: (state, [])].forms.insert(form)
            }
        }
    }

    /// Hands `states` to `connection` now, unless it would encode a large state's full form on the loop (a
    /// snapshot-mode subscription's snapshot, or the items of a state a delta-mode one cannot take as a delta), or it
    /// already waits for one: then the states wait with it, in seq order, and the forms it needs join `encodings`.
    /// The other connections are not held up by it: a delta-mode reader beside stalled snapshot-mode ones gets each
    /// state as soon as it is published. A connection that defers encodings is parked instead of waiting.
    private func hand(_ states: [StateFrame], to connection: ConnectionSubscriptions, encodings: inout EncodingsNeeded) {
        let key = ObjectIdentifier(connection)
        if let held = unpark(key, connection) {
            // Parked, and handed a state all the same (a subscription's first): it joins those held, then all go on
            // as though the connection could write.
            waiting.value[key] = Self.merged(held, states)
            return handHeld(key, encodings: &encodings)
        }
        if let held = waiting.value[key] {
            waiting.value[key] = Self.merged(held, states)
            if connection.defersEncodings { park(key) }
            return
        }
        let needed = connection.fullFormsToEncode(of: states)
        guard !needed.isEmpty else { return connection.deliver(states) }
        waiting.value[key] = states
        guard !connection.defersEncodings else {
            // Held unencoded until its socket takes more (`connectionCanWrite`); newer states replace them meanwhile.
            return park(key)
        }
        encodings.add(needed)
    }

    /// `held` followed by those of `states` not among them, in seq order.
    private static func merged(_ held: [StateFrame], _ states: [StateFrame]) -> [StateFrame] {
        held + states.filter { state in !held.contains { $0 === state } }
    }

    /// Parks the connection `key` with the states it waits with, cut to what its queues would keep: from now on the
    /// group's passes skip it, and the states they hand out wait in the parked connections' log.
    private func park(_ key: ObjectIdentifier) {
        let limits = limits.current
        let held = waiting.value.removeValue(forKey: key) ?? []
        active.value[key] = nil
        parked.value.park(
            key,
            holding: ParkedConnections.newestWithinBounds(
                held, limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes, state: \.self))
    }

    /// Unparks `connection` if it is parked: the group's passes hand it states again, starting with those returned.
    private func unpark(_ key: ObjectIdentifier, _ connection: ConnectionSubscriptions) -> [StateFrame]? {
        guard parked.value.contains(key) else { return nil }
        let limits = limits.current
        active.value[key] = connection
        return parked.value.unpark(key, limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes)
    }

    /// A new subscription of `connection` starts from `state`, a form of which is not encoded yet: `state` is handed to
    /// the connection as a published state is (`hand`), so the connection waits for the form off the loop and gets
    /// `state` first when it is done, then every state handed to it meanwhile.
    func awaitFirstState(_ state: StateFrame, for connection: ConnectionSubscriptions) {
        var toEncode = EncodingsNeeded()
        hand([state], to: connection, encodings: &toEncode)
        encodeOffLoop(toEncode)
    }

    /// Has `encodings` made on the server's CPU pool (once for all loops: `StateFrame.encode`), those this group has
    /// not asked for already; when each is done, the connections waiting get their states from the loop.
    private func encodeOffLoop(_ encodings: EncodingsNeeded) {
        for (state, forms) in encodings.byState.values {
            let asked = forms.filter { !requested.value.contains(Requested(state: state, form: $0)) }
            guard !asked.isEmpty else { continue }
            for form in asked { requested.value.insert(Requested(state: state, form: form)) }
            state.encode(asked) {
                self.eventLoop.execute {
                    for form in asked { self.requested.value.remove(Requested(state: state, form: form)) }
                    self.handWaiting()
                }
            }
        }
    }

    /// Runs on `eventLoop` when an encoding is done: every waiting connection that can write gets its states (`handHeld`).
    private func handWaiting() {
        var toEncode = EncodingsNeeded()
        for key in waiting.value.keys {
            handHeld(key, encodings: &toEncode)
        }
        encodeOffLoop(toEncode)
    }

    /// Runs on `eventLoop` when `connection` took a delta-mode subscription. A parked connection is unparked: what
    /// parking keeps of the states published meanwhile is what snapshot-mode queues would, and a delta-mode one needs
    /// more (`SubscriptionSet.worthQueueing`).
    func deltaSubscriptionAdded(to connection: ConnectionSubscriptions) {
        guard parked.value.contains(ObjectIdentifier(connection)) else { return }
        connectionCanWrite(connection)
    }

    /// Runs on `eventLoop` when `connection`'s socket takes more again: a parked connection is unparked, and the states
    /// it held unencoded while it could not write are handed over now, and the forms they need asked for.
    func connectionCanWrite(_ connection: ConnectionSubscriptions) {
        let key = ObjectIdentifier(connection)
        if let held = unpark(key, connection) {
            waiting.value[key] = held
        }
        var toEncode = EncodingsNeeded()
        handHeld(key, encodings: &toEncode)
        encodeOffLoop(toEncode)
    }

    /// The connection `key`'s waiting states, up to the first that still needs a form encoded (so it holds on to no
    /// more encoded states than its queue would), and what it still needs joins `encodings`; a connection that now
    /// defers encodings is parked instead.
    private func handHeld(_ key: ObjectIdentifier, encodings: inout EncodingsNeeded) {
        guard let held = waiting.value[key] else { return }
        guard let connection = connections.value[key] else {
            waiting.value[key] = nil
            return
        }
        guard !connection.defersEncodings else { return park(key) }
        var states = held[...]
        var needed = connection.fullFormsToEncode(of: Array(states))
        while !needed.isEmpty, let first = states.firstIndex(where: { state in needed.contains { $0.state === state } }),
            first > states.startIndex
        {
            connection.deliver(Array(states[..<first]))
            states = states[first...]
            needed = connection.fullFormsToEncode(of: Array(states))
        }
        if needed.isEmpty {
            waiting.value[key] = nil
            connection.deliver(Array(states))
        } else {
            waiting.value[key] = Array(states)
            encodings.add(needed)
        }
    }

    /// Empties the mailbox, recording what it held for the parked connections. When it is already empty and
    /// `endingDeliveryIfEmpty`, the delivery task ends: the next post schedules a new one.
    private func takePosted(endingDeliveryIfEmpty: Bool) -> [StateFrame] {
        let states = takeMailbox(endingDeliveryIfEmpty: endingDeliveryIfEmpty)
        if !states.isEmpty && !parked.value.isEmpty {
            let limits = limits.current
            parked.value.record(states, limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes)
        }
        return states
    }

    private func takeMailbox(endingDeliveryIfEmpty: Bool) -> [StateFrame] {
        mailbox.withLock { mailbox in
            if mailbox.states.isEmpty {
                if endingDeliveryIfEmpty { mailbox.isDeliveryScheduled = false }
                return []
            }
            defer { mailbox.states = [] }
            return mailbox.states
        }
    }
}
