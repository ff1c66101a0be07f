import DepotWire
import NIOCore

/// A connection's subscriptions, in the order they were made: which are started, what each writes next and in what
/// turn, which heartbeats are due, and which end. A value the connection owns; the connection does the I/O (it writes
/// what `next` gives while the socket takes it) and the bookkeeping of a subscription let go (`Subscription`'s
/// buffers, its shared pipeline, the fan-out's counts).
struct SubscriptionSet {
    private var subscriptions: [Subscription] = []
    /// Made by the message being dispatched: they start once its answer is written.
    private var awaitingAnswer: [String] = []

    /// What to write next for the subscribers.
    enum Output {
        /// One notification: the prefix (with `skipped` when states were skipped), the State, and in delta mode the
        /// delta. `skipped` counts the states this notification says were skipped.
        case notification(prefix: ByteBuffer, state: ByteBuffer, delta: ByteBuffer?, skipped: Int)
        /// The subscription ended (`subscriptionEnded` says `reason`) and has left the set; the connection lets it go.
        case ended(Subscription, reason: String)
    }

    var count: Int { subscriptions.count }
    var isEmpty: Bool { subscriptions.isEmpty }
    var activeCount: Int { subscriptions.count { $0.isActive } }

    /// Whether one is in snapshot mode: it needs each success state's full encoding.
    var wantsSnapshots: Bool {
        subscriptions.contains { $0.mode == .snapshot }
    }

    /// Whether there are subscriptions and all are in snapshot mode: each state they queue replaces older ones once
    /// the queue is at a bound, so a newer state makes an older one unneeded.
    var onlySnapshots: Bool {
        !subscriptions.isEmpty && subscriptions.allSatisfy { $0.mode == .snapshot }
    }

    /// Of `states` (in seq order, handed over together), those worth queueing: the newest `limit` — older ones would
    /// only be dropped from a full queue — and, when a subscription is in delta mode, before them the newest success of
    /// each pipeline whose first state among them is not a success. A delta-mode client sent a state is to hold the
    /// last success before it (what it shows while `loading`); coalescing sends that success, so it must reach the queue.
    func worthQueueing(_ states: [StateFrame], limit: Int) -> [StateFrame] {
        Self.worthQueueing(states, limit: limit, keepingSuccesses: !onlySnapshots)
    }

    /// `worthQueueing(_:limit:)`, for subscriptions that need the successes before the newest `limit` states or not.
    static func worthQueueing(_ states: [StateFrame], limit: Int, keepingSuccesses: Bool) -> [StateFrame] {
        let cut = states.count - max(limit, 1)
        guard cut > 0 else { return states }
        let newest = states[cut...]
        guard keepingSuccesses else { return Array(newest) }
        // The pipelines whose first state kept is a success need none before it: the others one each.
        var served = Set<Int>()
        var needing = Set<Int>()
        for state in newest where served.insert(state.pipelineNumber).inserted && !state.isSuccess {
            needing.insert(state.pipelineNumber)
        }
        var successes: [StateFrame] = []
        for state in states[..<cut].reversed() where state.isSuccess && needing.remove(state.pipelineNumber) != nil {
            successes.append(state)
        }
        return successes.reversed() + newest
    }

    /// The full forms that queueing `states` would encode on this thread (`Subscription.fullForms`, less those
    /// encoded already); empty when none would.
    func fullFormsToEncode(of states: some Collection<StateFrame>, limit: Int, byteLimit: Int) -> [(state: StateFrame, form: StateFrame.FullForm)] {
        subscriptions.flatMap { $0.fullForms(of: states, limit: limit, byteLimit: byteLimit) }.filter { $0.state.wouldEncode($0.form) }
    }

    /// Whether a started subscription has something to write: states waiting, or its end.
    var hasOutput: Bool {
        subscriptions.contains { $0.isActive && ($0.hasQueuedStates || $0.endReason != nil) }
    }

    /// The started subscriptions and their queues, for `stats`.
    func statistics(uid: UInt32?) -> [DepotStatistics.Subscription] {
        subscriptions.filter(\.isActive).map { subscription in
            DepotStatistics.Subscription(
                subscription: subscription.id, uid: uid, mode: subscription.mode, pipeline: subscription.sharedPipeline?.key,
                queuedStates: subscription.queuedCount, queuedBytes: subscription.queuedBytes, skipped: subscription.skippedTotal,
                sent: subscription.sentCount)
        }
    }

    /// Adds a subscription made by the message being dispatched; it starts when `takeAwaitingAnswer` hands it over.
    mutating func add(_ subscription: Subscription) {
        subscriptions.append(subscription)
        awaitingAnswer.append(subscription.id)
    }

    /// The ids of the subscriptions waiting for their answer to be written; they wait no longer.
    mutating func takeAwaitingAnswer() -> [String] {
        defer { awaitingAnswer = [] }
        return awaitingAnswer
    }

    /// Starts the subscriptions `ids` (those still here); returns how many started.
    mutating func start(_ ids: [String]) -> Int {
        var started = 0
        for id in ids {
            guard let index = subscriptions.firstIndex(where: { $0.id == id }) else { continue }
            subscriptions[index].isActive = true
            started += 1
        }
        return started
    }

    /// Takes the subscription `id` out of the set; nil when there is none by that id.
    mutating func remove(id: String) -> Subscription? {
        guard let index = subscriptions.firstIndex(where: { $0.id == id }) else { return nil }
        return subscriptions.remove(at: index)
    }

    /// Takes every subscription out of the set.
    mutating func removeAll() -> [Subscription] {
        defer { subscriptions.removeAll() }
        return subscriptions
    }

    /// The subscriptions through shared pipeline `number` end once they have written what they queued.
    mutating func end(pipelineNumber number: Int, reason: String) {
        for index in subscriptions.indices where subscriptions[index].pipelineNumber == number {
            subscriptions[index].endReason = reason
        }
    }

    /// Every subscription ends now, its queued states unsent.
    mutating func endAll(reason: String) {
        for index in subscriptions.indices {
            subscriptions[index].discardQueue()
            subscriptions[index].endReason = reason
        }
    }

    /// Queues `states` (in seq order) in every subscription, started or not: one whose answer is not written yet
    /// misses nothing between its start and the answer.
    mutating func enqueue(_ states: some Collection<StateFrame>, limit: Int, byteLimit: Int) {
        for state in states {
            for index in subscriptions.indices {
                subscriptions[index].enqueue(state, limit: limit, byteLimit: byteLimit)
            }
        }
    }

    /// What queued and dropped since the last call, in every subscription.
    mutating func takeLedgers() -> ClientMemory.Change {
        var change = ClientMemory.Change()
        for index in subscriptions.indices {
            change.merge(subscriptions[index].takeLedger())
        }
        return change
    }

    /// Snapshot-mode subscriptions skip to their newest state (over a memory bound); returns what that let go.
    mutating func trimToNewest() -> ClientMemory.Change {
        var trimmed = ClientMemory.Change()
        for index in subscriptions.indices where subscriptions[index].trimToNewest() {
            trimmed.merge(subscriptions[index].takeLedger())
        }
        return trimmed
    }

    /// The next thing to write in a pass that began with `turn` at 0: each started subscription in order writes its
    /// queue, then, if it was ended, its end. Nil when the pass is over.
    mutating func next(turn: inout Int) -> Output? {
        while turn < subscriptions.count {
            guard subscriptions[turn].isActive else {
                turn += 1
                continue
            }
            let skippedBefore = subscriptions[turn].skippedTotal
            if let (prefix, state, delta) = subscriptions[turn].nextNotification() {
                let skipped = subscriptions[turn].skippedTotal - skippedBefore
                // Its turn lasts while it has states, and for its end when it was ended: the end follows its last
                // state in the same pass, not at whatever drain comes next.
                if !subscriptions[turn].hasQueuedStates && subscriptions[turn].endReason == nil {
                    turn += 1
                }
                return .notification(prefix: prefix, state: state, delta: delta, skipped: skipped)
            }
            if let reason = subscriptions[turn].endReason {
                return .ended(subscriptions.remove(at: turn), reason: reason)
            }
            turn += 1
        }
        return nil
    }

    /// When the next heartbeat is due; nil when no subscription asked for them.
    var nextHeartbeat: NIODeadline? {
        subscriptions.compactMap { subscription in subscription.heartbeat.map { subscription.lastSentAt + $0 } }.min()
    }

    /// The subscriptions idle for their heartbeat interval at `now` that are owed one (started, nothing waiting, a
    /// state written): their ids and the seq a heartbeat names. Every subscription due counts from `now` again.
    mutating func dueHeartbeats(at now: NIODeadline) -> [(subscription: String, seq: Int)] {
        var due: [(subscription: String, seq: Int)] = []
        for index in subscriptions.indices {
            let subscription = subscriptions[index]
            guard let interval = subscription.heartbeat, subscription.lastSentAt + interval <= now else { continue }
            subscriptions[index].lastSentAt = now
            guard subscription.isActive, !subscription.hasQueuedStates, let seq = subscription.lastWrittenSeq else { continue }
            due.append((subscription.id, seq))
        }
        return due
    }
}
