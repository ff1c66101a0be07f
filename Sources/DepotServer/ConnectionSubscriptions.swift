import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// What a connection's subscriptions ask of the connection they belong to: whether notifications may go out, and
/// to hear of what changed. `ConnectionHandler` is it, on its loop.
protocol SubscriptionsHost: AnyObject {
    /// Whether notifications may be written now: the connection is open (not cut off, not closing).
    var deliversNotifications: Bool { get }
    /// The number of active subscriptions changed by `count` (a draining connection closes once it has none).
    func subscriptionsChanged(by count: Int)
    /// What the connection holds changed: apply it to its user's account, and act when that passes the bound.
    func settleMemory()
}

/// One connection's subscriptions: starting and ending them, delivering the states published to them from their
/// bounded queues (`SubscriptionSet`), their heartbeats, and the connection's place in its loop's subscriber group,
/// which hands it the states. Used on the connection's event loop only.
final class ConnectionSubscriptions {
    private let fanout: StateFanout
    private let limits: LiveLimits
    private let counters: LimitCounters
    private let output: ConnectionOutput
    private let memory: ConnectionMemory
    /// The log of the connection, with its peer once admitted.
    var logger: Logger
    /// The peer, once admitted: the subscriptions' user in `stats`, and whose read access a reload may withdraw.
    var peer: PeerCredentials?
    private weak var host: (any SubscriptionsHost)?
    private var context: ChannelHandlerContext?
    private var subscriptions = SubscriptionSet()
    private var isInSubscriberGroup = false
    /// True while the queues are written: a flush can report the socket writable again at once, and the pass under
    /// way goes on instead of a second one starting inside it.
    private var isDelivering = false
    /// The next heartbeat due, while a subscription asked for them.
    private var heartbeatTimer: Scheduled<Void>?

    init(
        fanout: StateFanout, limits: LiveLimits, counters: LimitCounters, output: ConnectionOutput, memory: ConnectionMemory,
        logger: Logger
    ) {
        self.fanout = fanout
        self.limits = limits
        self.counters = counters
        self.output = output
        self.memory = memory
        self.logger = logger
    }

    /// The connection, from `handlerAdded` until `handlerRemoved`.
    func attach(_ context: ChannelHandlerContext?, host: any SubscriptionsHost) {
        self.context = context
        self.host = host
    }

    /// The subscriptions created while the current message was dispatched (their answer not yet written), taken.
    func takeAwaitingAnswer() -> [String] {
        subscriptions.takeAwaitingAnswer()
    }

    /// What the subscriptions' queues took and let go since the last call.
    func takeLedgers() -> ClientMemory.Change {
        subscriptions.takeLedgers()
    }

    /// Lets the snapshot-mode subscriptions skip to their newest state; what they let go.
    func trimToNewest() -> ClientMemory.Change {
        subscriptions.trimToNewest()
    }

    /// Creates a subscription as `request` asks. Without `since` it starts from the current state, sent first, then
    /// every later one. With `since`, it resumes after that state when the replay ring holds every state since
    /// and they fit the subscription's queue; otherwise it starts from the current state, marked as a resync.
    /// States queue from now on; they are written once the answer to the current message is.
    func subscribe(_ request: SubscribeRequest) throws(RPCError) -> SubscriptionStart {
        // The limits in force now, read whole: the subscription's queue bounds come from one reload, not two.
        let limits = limits.current
        guard subscriptions.count < limits.maxSubscriptions else {
            counters.hit(.maxSubscriptions)
            throw .tooManySubscriptions(most: limits.maxSubscriptions)
        }
        guard let context else { throw .internalError("the connection is closing") }
        var shared: SharedPipeline?
        switch request.pipeline {
        case .operators(let pipeline)? where pipeline.isEmpty:
            break
        case let reference?:
            do {
                shared = try fanout.join(reference)
            } catch {
                if error.code == DepotErrorCode.limitExceeded { counters.hit(.maxPipelines) }
                throw error
            }
        case nil:
            break
        }
        if !isInSubscriberGroup {
            fanout.addToGroup(self, on: context.eventLoop)
            isInSubscriberGroup = true
        }
        // Read after joining the group: any state published from here on reaches this loop after this task.
        let id = fanout.makeSubscriptionID()
        var subscription = Subscription(
            id: id, mode: request.mode, heartbeat: request.heartbeat.map(Self.timeAmount(seconds:)), sharedPipeline: shared)
        let current: StateFrame
        var resumed = false
        // The state the subscription starts from, when a form of it must be encoded first: off the loop (a large
        // success no one has needed in that form yet), handed over by the subscriber group when it is done.
        var awaiting: StateFrame?
        func start(from state: StateFrame?, resync: Bool) {
            if let state,
                subscription.fullForms(of: CollectionOfOne(state), limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes)
                    .contains(where: { $0.state.wouldEncode($0.form) })
            {
                subscription.start(awaiting: state, resync: resync)
                awaiting = state
                return
            }
            subscription.start(from: state, resync: resync)
        }
        if let shared {
            // Through a pipeline: resumed from its output when it still knows what followed `since`, else from
            // its current state.
            current = fanout.current
            if let since = request.since, since.epoch == fanout.epoch, let resumption = shared.resumption(after: since.seq) {
                resumed = subscription.resume(
                    after: since.seq, heldSuccess: resumption.heldSuccess, replay: resumption.replay, current: resumption.last,
                    generation: resumption.generation, limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes)
            }
            if !resumed {
                start(from: shared.current, resync: request.since != nil)
            }
        } else if let since = request.since {
            let resumption = fanout.resumption(after: since)
            current = resumption.current
            if let replay = resumption.replay {
                resumed = subscription.resume(
                    after: since.seq, heldSuccess: resumption.heldSuccess, replay: replay, current: current,
                    limit: limits.subscriberQueueLimit, byteLimit: limits.subscriberQueueBytes)
            }
            if !resumed {
                start(from: current, resync: true)
            }
        } else {
            current = fanout.current
            start(from: current, resync: false)
        }
        subscriptions.add(subscription)
        if let awaiting {
            fanout.group(for: context.eventLoop).awaitFirstState(awaiting, for: self)
        }
        if request.mode == .delta {
            fanout.group(for: context.eventLoop).deltaSubscriptionAdded(to: self)
        }
        logger.info(
            "subscribed",
            metadata: [
                "subscription": "\(id)", "mode": "\(request.mode.rawValue)",
                "since": "\(request.since.map { "\($0.epoch):\($0.seq)" } ?? "-")", "resumed": "\(resumed)",
                "pipeline": "\(request.pipeline.map { $0.json.jsonText } ?? "-")",
            ])
        scheduleHeartbeats()
        return SubscriptionStart(id: id, epoch: fanout.epoch, seq: current.seq, resumed: resumed)
    }

    private static func timeAmount(seconds: Double) -> TimeAmount {
        .nanoseconds(Int64((seconds * 1_000_000_000).rounded()))
    }

    /// This connection's active subscriptions and their queues, for `stats`.
    var subscriptionStatistics: [DepotStatistics.Subscription] {
        subscriptions.statistics(uid: peer?.uid)
    }

    /// Whether a subscription of this connection is in snapshot mode: it needs each success state's full encoding.
    var wantsSnapshots: Bool {
        subscriptions.wantsSnapshots
    }

    /// Ends the connection's subscription `id`; false when this connection has none by that id.
    func unsubscribe(_ id: String) -> Bool {
        guard let removed = subscriptions.remove(id: id) else { return false }
        letGo(removed)
        logger.info("unsubscribed", metadata: ["subscription": "\(id)"])
        return true
    }

    /// Lets go of a subscription taken out of the set: its memory, its shared pipeline, its count; and of the group
    /// when it was the connection's last.
    private func letGo(_ subscription: Subscription) {
        releaseHoldings(of: subscription)
        if subscription.isActive {
            fanout.subscriptionsEnded(1)
            host?.subscriptionsChanged(by: -1)
        }
        leaveSubscriberGroupIfIdle()
    }

    /// What a subscription taken out of the set held goes off the books, and it leaves its shared pipeline.
    private func releaseHoldings(of subscription: Subscription) {
        var subscription = subscription
        memory.merge(subscription.takeLedger())
        memory.release(subscription.queuedBuffers)
        if let shared = subscription.sharedPipeline { fanout.leave(shared) }
    }

    /// Called by the subscriber group, on this loop: the shared pipeline `number` ended (its named pipeline was
    /// deleted). Its subscriptions write what they have queued, then `subscriptionEnded`, and are gone.
    func pipelineEnded(_ number: Int, reason: String) {
        subscriptions.end(pipelineNumber: number, reason: reason)
        drainQueues()
    }

    /// Called by the subscriber group, on this loop: every subscription ends now, its queued states unsent, with
    /// `subscriptionEnded` saying `reason` (the peer lost read access).
    func endAllSubscriptions(reason: String) {
        subscriptions.endAll(reason: reason)
        drainQueues()
    }

    /// Starts writing the states of subscriptions whose answer has been written.
    func activate(_ ids: [String]) {
        guard !ids.isEmpty, let host, host.deliversNotifications else { return }
        let started = subscriptions.start(ids)
        for _ in 0..<started {
            fanout.subscriptionStarted()
        }
        host.subscriptionsChanged(by: started)
        leaveSubscriberGroupIfIdle()
        drainQueues()
    }

    /// The full forms this connection's subscriptions would encode on the loop if `states` were delivered now; the
    /// subscriber group has those encoded off the loop first.
    func fullFormsToEncode(of states: [StateFrame]) -> [(state: StateFrame, form: StateFrame.FullForm)] {
        let limits = limits.current
        return subscriptions.fullFormsToEncode(
            of: subscriptions.worthQueueing(states, limit: limits.subscriberQueueLimit), limit: limits.subscriberQueueLimit,
            byteLimit: limits.subscriberQueueBytes)
    }

    /// Whether a large state's full form should wait unencoded until the socket takes more: the socket is full and
    /// every subscription is in snapshot mode, so newer states replace it in the queue before it could be written.
    /// A subscriber that does not read then costs no encoding per state.
    var defersEncodings: Bool {
        guard let context, !context.channel.isWritable else { return false }
        return subscriptions.onlySnapshots
    }

    /// Called by the subscriber group, on this loop, with published states in seq order (some may have been
    /// delivered before, and are ignored); writes what the socket takes, in one flush.
    func deliver(_ states: [StateFrame]) {
        guard context != nil, let host, host.deliversNotifications else { return }
        let limits = limits.current
        let (queueLimit, byteLimit) = (limits.subscriberQueueLimit, limits.subscriberQueueBytes)
        // Only those worth queueing (`SubscriptionSet.worthQueueing`). Subscriptions whose answer is not written yet
        // queue them too, so they miss nothing between their start and the answer.
        let states = subscriptions.worthQueueing(states, limit: queueLimit)
        guard wantsSnapshots, states.count > 1, states.contains(where: \.isSuccess) else {
            subscriptions.enqueue(states, limit: queueLimit, byteLimit: byteLimit)
            return drainQueues()
        }
        // Snapshots handed over together (a large state's waited for its encoding) are queued one at a time, written
        // as the socket takes them: two of them at once could pass a snapshot-mode queue's byte bound, and the first
        // be dropped as though the reader had lagged.
        for state in states {
            subscriptions.enqueue(CollectionOfOne(state), limit: queueLimit, byteLimit: byteLimit)
            drainQueues()
        }
    }

    private func leaveSubscriberGroupIfIdle() {
        guard isInSubscriberGroup, let context, subscriptions.isEmpty else { return }
        fanout.removeFromGroup(self, on: context.eventLoop)
        isInSubscriberGroup = false
    }

    /// Writes queued notifications while the socket takes them. Re-entrant calls (a flush can report the
    /// socket writable again synchronously) return at once; the outer call loops instead.
    func drainQueues() {
        guard let context, let host, !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        var wrote: Bool
        repeat {
            wrote = false
            var turn = 0
            while context.channel.isWritable, let next = subscriptions.next(turn: &turn) {
                wrote = true
                switch next {
                case .notification(let prefix, let state, let delta, let skipped):
                    if skipped > 0 {
                        counters.hit(.subscriberQueue, times: skipped)
                    }
                    output.emit(prefix)
                    // The state and delta come from the queue, which held them in the books: they stay held until written.
                    output.emit(state, alreadyHeld: true)
                    if let delta {
                        output.emit(delta, alreadyHeld: true)
                    }
                    output.emit(StateNotification.suffix)
                case .ended(let subscription, let reason):
                    let ended = SubscriptionEnded(subscription: subscription.id, reason: reason)
                    output.emit(ended.line(allocator: context.channel.allocator))
                    logger.info("subscription ended", metadata: ["subscription": "\(ended.subscription)", "reason": "\(reason)"])
                    letGo(subscription)
                }
            }
            if wrote {
                output.flush()
            }
        } while wrote && self.context != nil && context.channel.isWritable && subscriptions.hasOutput
        host.settleMemory()
    }

    /// Arms the heartbeat timer for the subscription due soonest, replacing the one armed.
    private func scheduleHeartbeats() {
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        guard let context else { return }
        guard let due = subscriptions.nextHeartbeat else { return }
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        heartbeatTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
            connection.value.sendDueHeartbeats()
        }
    }

    /// Writes a heartbeat for every active subscription idle for its interval, then arms the timer for the next.
    /// A subscription with states waiting is not idle: its reader is behind, and the states will tell it more.
    private func sendDueHeartbeats() {
        heartbeatTimer = nil
        guard let context, let host, host.deliversNotifications else { return }
        var wrote = false
        for (subscription, seq) in subscriptions.dueHeartbeats(at: .now()) where context.channel.isWritable {
            let heartbeat = Heartbeat(subscription: subscription, epoch: fanout.epoch, seq: seq)
            output.emit(heartbeat.line(allocator: context.channel.allocator))
            wrote = true
        }
        if wrote {
            output.flush()
            host.settleMemory()
        }
        scheduleHeartbeats()
    }

    func leaveAll() {
        let active = subscriptions.activeCount
        for subscription in subscriptions.removeAll() {
            releaseHoldings(of: subscription)
        }
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        if active > 0 {
            fanout.subscriptionsEnded(active)
        }
        leaveSubscriberGroupIfIdle()
    }

    /// The socket takes more again: what waits in the queues is written, and states the group held unencoded while the
    /// socket was full are handed over.
    func canWrite() {
        drainQueues()
        if isInSubscriberGroup, let context {
            fanout.group(for: context.eventLoop).connectionCanWrite(self)
        }
    }
}
