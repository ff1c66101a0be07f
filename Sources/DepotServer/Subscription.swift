import DepotRPC
import DepotWire
import NIOCore

/// One subscription of a connection: its id, its mode, and its bounded queue of notifications not yet written.
///
/// States enter in seq order (anything not newer than the last one queued is ignored, which also drops the
/// duplicate a subscriber can receive right after it subscribed). The queue is bounded by a count of states and
/// by their bytes; the newest is always kept, so one state larger than the byte bound still goes out, alone.
/// Past a bound, a snapshot-mode subscription drops its oldest states; a delta-mode one coalesces everything
/// not yet written into what takes the client from its last success to the newest state (that success in full
/// when its delta no longer applies). Either way the next notification written says how many were skipped, and
/// what the client holds after applying everything it received is the newest state.
struct Subscription {
    /// One notification waiting: the State's bytes, and in delta mode the delta that goes with them.
    struct Pending {
        let seq: Int
        /// The shared pipeline's generation the state came through.
        var generation = 0
        let state: ByteBuffer
        let delta: ByteBuffer?
        /// The success state the client holds once this is written.
        let heldSuccess: Int?

        var bytes: Int { state.readableBytes + (delta?.readableBytes ?? 0) }

        /// Whether it is a success state: the client holds its items once it is written.
        var isSuccess: Bool { heldSuccess == seq }

        /// Its buffers, for the memory ledger.
        var buffers: [ByteBuffer] { delta.map { [state, $0] } ?? [state] }
    }

    let id: String
    let mode: SubscriptionMode
    /// The pipeline whose output this subscription sends; nil for the repository's states as they are.
    let sharedPipeline: SharedPipeline?
    /// The frames this subscription takes: its shared pipeline's number, 0 for the repository's.
    let pipelineNumber: Int
    /// Seconds without a notification after which a heartbeat is sent; nil for none.
    let heartbeat: TimeAmount?
    /// The notification prefix for this subscription when nothing was skipped.
    private let prefix: ByteBuffer
    /// False until the `subscribe` response has been written; until then nothing is written.
    var isActive = false
    /// The first notification written says `"resync": true`.
    private var resyncPending = false
    /// The pipeline generation of the newest state queued; a newer one is taken whatever its seq.
    private var generation = 0
    /// The next notification of `generation` written says `"pipelineChanged": true`.
    private var pipelineChangedPending = false
    /// Set when the daemon ended the subscription: once its queue is written, `subscriptionEnded` says why.
    var endReason: String?
    private var lastQueuedSeq = -1
    /// The seq of the last state written (or the one a resumed subscription started after).
    private(set) var lastWrittenSeq: Int?
    /// Notifications taken to be written, and the states they said were skipped, since the subscription began.
    private(set) var sentCount = 0
    private(set) var skippedTotal = 0
    /// When a notification or heartbeat was last written (kept only when heartbeats are asked for).
    var lastSentAt = NIODeadline.now()
    private var queue = CircularBuffer<Pending>(initialCapacity: 4)
    /// The bytes of the queued notifications.
    private(set) var queuedBytes = 0
    /// Buffers queued and dropped since the connection last took the ledger (`takeLedger`), so it can count
    /// what its subscriptions hold against its user's memory. A notification taken to be written leaves the
    /// queue without a ledger entry: the connection holds it until the socket has taken it.
    private var ledger = ClientMemory.Change()
    /// Delta mode: the success state the client holds once everything queued is written: the base of the next delta.
    private var queuedSuccess: Int?
    /// Delta mode: the success state the client holds now.
    private var writtenSuccess: Int?
    /// Delta mode: the newest success state queued and not yet written, kept so that coalescing can send it in
    /// full when the deltas that led to it are dropped.
    private var unwrittenSuccess: StateFrame?

    init(id: String, mode: SubscriptionMode = .snapshot, heartbeat: TimeAmount? = nil, sharedPipeline: SharedPipeline? = nil) {
        self.id = id
        self.mode = mode
        self.sharedPipeline = sharedPipeline
        self.pipelineNumber = sharedPipeline?.number ?? 0
        self.heartbeat = heartbeat
        self.prefix = StateNotification.prefix(subscription: id)
    }

    var hasQueuedStates: Bool { !queue.isEmpty }

    /// Drops every notification not yet written.
    mutating func discardQueue() {
        dropAll()
    }

    /// What was queued and dropped since the last call.
    mutating func takeLedger() -> ClientMemory.Change {
        defer { ledger = ClientMemory.Change() }
        return ledger
    }

    /// Every buffer queued now, for a connection that lets the subscription go.
    var queuedBuffers: [ByteBuffer] {
        queue.flatMap(\.buffers)
    }

    private mutating func dropAll() {
        for pending in queue {
            ledger.release(pending.buffers)
        }
        queue.removeAll()
        queuedBytes = 0
    }

    var queuedCount: Int { queue.count }

    /// Starts from `current`, sent in full; `resync` marks it as the start of a resume that was not possible.
    /// Without a current state (a pipeline holds it back) the first state sent is the next one it lets out.
    mutating func start(from current: StateFrame?, resync: Bool) {
        resyncPending = resync
        guard let current else {
            // Its first state is whatever the pipeline lets out first, of whichever generation.
            generation = -1
            return
        }
        generation = current.generation
        append(next(current, held: nil), seq: current.seq)
    }

    /// Starts from `current` without queueing it yet: a form of it is being encoded off the loop, and the subscriber
    /// group hands it over, as a published state, once it is — the first state queued, with what followed it.
    mutating func start(awaiting current: StateFrame, resync: Bool) {
        resyncPending = resync
        generation = current.generation
        lastQueuedSeq = current.seq - 1
    }

    /// Starts after the state `since` the client holds (whose last success is `heldSuccess`): queues every state
    /// the ring holds after it, then `current`. False, with nothing queued, when the ring lacks a form this mode
    /// needs or the replay does not fit within `limit` states and `byteLimit` bytes.
    /// `current` is nil for a pipeline that has let nothing out yet; `generation` is the pipeline's (0 without one).
    mutating func resume(
        after since: Int, heldSuccess: Int?, replay: ArraySlice<ReplayRing.Entry>, current: StateFrame?, generation: Int = 0, limit: Int,
        byteLimit: Int
    ) -> Bool {
        var pending: [Pending] = []
        var held = heldSuccess
        for entry in replay where entry.seq > since {
            guard let next = notification(for: entry, held: held) else {
                unwrittenSuccess = nil
                return false
            }
            pending.append(next)
            held = next.heldSuccess
        }
        if let current, current.seq > since {
            pending.append(next(current, held: held))
        }
        guard pending.count <= max(limit, 1), pending.count <= 1 || pending.reduce(0, { $0 + $1.bytes }) <= byteLimit else {
            unwrittenSuccess = nil
            return false
        }
        lastWrittenSeq = since
        writtenSuccess = heldSuccess
        queuedSuccess = heldSuccess
        lastQueuedSeq = since
        self.generation = generation
        for notification in pending {
            append(notification, seq: notification.seq)
        }
        return true
    }

    /// Queues `frame` unless it is not newer than the last one; then holds the queue to `limit` states and
    /// `byteLimit` bytes, as the type's description says.
    mutating func enqueue(_ frame: StateFrame, limit: Int, byteLimit: Int = .max) {
        guard frame.pipelineNumber == pipelineNumber, endReason == nil, frame.generation >= generation else { return }
        if generation < 0 { generation = frame.generation }
        if frame.generation > generation {
            // The named pipeline changed: what is queued came through the old one, and the items the client holds
            // are the old pipeline's, so nothing is a base for a delta. The new current state goes in full.
            generation = frame.generation
            pipelineChangedPending = true
            dropAll()
            queuedSuccess = nil
            writtenSuccess = nil
            unwrittenSuccess = nil
            append(next(frame, held: nil), seq: frame.seq)
            return
        }
        guard frame.seq > lastQueuedSeq else { return }
        append(next(frame, held: queuedSuccess), seq: frame.seq)
        guard queue.count > 1, queue.count > limit || queuedBytes > byteLimit else { return }
        switch mode {
        case .snapshot:
            while queue.count > 1, queue.count > limit || queuedBytes > byteLimit {
                let dropped = queue.removeFirst()
                queuedBytes -= dropped.bytes
                ledger.release(dropped.buffers)
            }
        case .delta:
            coalesce(to: frame)
        }
    }

    /// The full forms queueing `states` (in seq order) would take: in snapshot mode each state's snapshot; in delta
    /// mode the items with `count` of a success it cannot send as a delta — one with no delta from the success the
    /// client will hold, one after a pipeline change, or one that finds the queue at a bound (coalescing then sends
    /// it from the success the client holds). Only what `StateFrame.wouldEncode` says is still to encode matters.
    func fullForms(of states: some Collection<StateFrame>, limit: Int, byteLimit: Int) -> [(state: StateFrame, form: StateFrame.FullForm)] {
        guard endReason == nil else { return [] }
        var forms: [(state: StateFrame, form: StateFrame.FullForm)] = []
        var held = queuedSuccess
        var lastSeq = lastQueuedSeq
        let atBound = queue.count >= limit || queuedBytes >= byteLimit
        for state in states where state.pipelineNumber == pipelineNumber && (state.seq > lastSeq || state.generation > generation) {
            lastSeq = state.seq
            switch mode {
            case .snapshot:
                forms.append((state, .snapshot))
            case .delta:
                guard state.isSuccess else { continue }
                let base = state.delta?.base
                if state.generation > generation || base == nil || base != held || (atBound && base != writtenSuccess) {
                    forms.append((state, .countedItems))
                }
                held = state.seq
            }
        }
        return forms
    }

    /// Cuts a snapshot-mode queue to its newest state, which is all the client needs to be current: for a connection
    /// whose user holds more memory than it may. Delta mode's queue is left as it is: already coalesced within its
    /// bounds, and coalescing again could mean sending the items in full instead of small deltas. Returns whether
    /// anything was dropped (the next notification then says how many states were skipped).
    mutating func trimToNewest() -> Bool {
        guard mode == .snapshot, queue.count > 1 else { return false }
        while queue.count > 1 {
            let dropped = queue.removeFirst()
            queuedBytes -= dropped.bytes
            ledger.release(dropped.buffers)
        }
        return true
    }

    /// Delta mode, over a bound: replaces everything queued by what takes the client from the success it holds to
    /// `newest` — `newest` itself (as a delta when its base is that success, else in full), preceded, when `newest` is
    /// not a success, by the newest unwritten success: a client sent a state holds the last success before it, which
    /// is what a resume from that state takes it to hold. That success goes in full, or — one a resume replayed, which
    /// the ring keeps only as its delta — as the replayed successes' deltas, the other states between them dropped.
    private mutating func coalesce(to newest: StateFrame) {
        let queued = queue
        dropAll()
        queuedSuccess = writtenSuccess
        lastQueuedSeq = lastWrittenSeq ?? -1
        if !newest.isSuccess {
            if let success = unwrittenSuccess, success.seq > (writtenSuccess ?? -1) {
                append(next(success, held: queuedSuccess), seq: success.seq)
            } else {
                for replayed in queued where replayed.isSuccess {
                    append(replayed, seq: replayed.seq)
                }
            }
        }
        append(next(newest, held: queuedSuccess), seq: newest.seq)
    }

    /// The next notification to write: its prefix (naming how many states were skipped, and a resync), the
    /// State's bytes, and the delta that goes with them.
    mutating func nextNotification() -> (prefix: ByteBuffer, state: ByteBuffer, delta: ByteBuffer?)? {
        guard let next = queue.popFirst() else { return nil }
        queuedBytes -= next.bytes
        // A pipeline change sends the current state again, with a seq not above the last one written.
        let skipped = lastWrittenSeq.map { max(0, next.seq - $0 - 1) } ?? 0
        sentCount += 1
        skippedTotal += skipped
        lastWrittenSeq = next.seq
        writtenSuccess = next.heldSuccess
        if let success = unwrittenSuccess, success.seq <= next.seq { unwrittenSuccess = nil }
        let changed = pipelineChangedPending && next.generation == generation
        let prefix =
            skipped > 0 || resyncPending || changed
            ? StateNotification.prefix(subscription: id, skipped: skipped, resync: resyncPending, pipelineChanged: changed) : self.prefix
        resyncPending = false
        if changed { pipelineChangedPending = false }
        if heartbeat != nil { lastSentAt = .now() }
        return (prefix, next.state, next.delta)
    }

    private mutating func append(_ notification: Pending, seq: Int) {
        lastQueuedSeq = seq
        queue.append(notification)
        queuedBytes += notification.bytes
        ledger.hold(notification.buffers)
        queuedSuccess = notification.heldSuccess
    }

    /// The current state `frame` for a client that holds the success `held` (see `notification(for:held:)`); it has every form.
    private mutating func next(_ frame: StateFrame, held: Int?) -> Pending {
        if mode == .delta, frame.isSuccess {
            unwrittenSuccess = frame
        }
        guard var notification = notification(for: frame, held: held) else {
            preconditionFailure("a current state has every form")
        }
        notification.generation = frame.generation
        return notification
    }

    /// `state` for a client that holds the success `held`, in this mode: in snapshot mode its snapshot; in delta
    /// mode a success as its delta when that is based on `held`, else with `count` and its items, and any other
    /// state as it is. Nil when `state` lacks the form (a replayed state the ring did not keep in it).
    private func notification(for state: some StateForms, held: Int?) -> Pending? {
        let heldSuccess = state.isSuccess ? state.seq : held
        guard mode == .delta, state.isSuccess else {
            return state.snapshotForm.map { Pending(seq: state.seq, state: $0, delta: nil, heldSuccess: heldSuccess) }
        }
        if let base = state.deltaBase, base == held, let withDelta = state.stateWithDelta {
            return Pending(seq: state.seq, state: withDelta.state, delta: withDelta.delta, heldSuccess: heldSuccess)
        }
        return state.countedItemsForm.map { Pending(seq: state.seq, state: $0, delta: nil, heldSuccess: heldSuccess) }
    }
}
