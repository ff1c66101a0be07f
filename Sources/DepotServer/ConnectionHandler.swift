import DepotCore
import DepotJSON
import DepotPipeline
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// One client connection: reads JSON-RPC lines, dispatches them, writes answers, and delivers the
/// notifications of the connection's subscriptions from their bounded queues.
///
/// Everything here runs on the connection's event loop. Reads are answered inline; answers that come later
/// (mutations) call back from whichever thread finished them and are written here, so several requests can be
/// in flight and answers can come back in any order. The lifecycle — when to read, when to close, what a
/// half-close, a shutdown or an oversized line mean — is `ConnectionStateMachine`'s; this handler carries out
/// its actions and owns the I/O: writes, flushes, the subscriptions' queues and the timers.
final class ConnectionHandler: ChannelDuplexHandler, DepotSession {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: RPCDispatcher<any DepotSession>
    private let fanout: StateFanout
    private let limits: LiveLimits
    /// How long a shutdown waits for this connection's pending answers before closing it anyway.
    private let shutdownTimeout: TimeAmount
    private var logger: Logger

    private var machine = ConnectionStateMachine()
    private var context: ChannelHandlerContext?
    private(set) var peer: PeerCredentials?
    private var subscriptions = SubscriptionSet()
    private var isInSubscriberGroup = false
    /// The answers still coming, each with the withdrawal that stops it from calling back once the connection
    /// is gone: closing withdraws them all, so no finished mutation writes to, or keeps, a closed connection.
    private var pendingAnswers: [Int: Withdrawal] = [:]
    private var nextAnswerNumber = 0
    private var needsFlush = false
    private var isDrainingQueues = false
    /// Lines read while the connection could not take more requests, oldest first (see `ConnectionStateMachine.lineRead`).
    private var heldLines = CircularBuffer<ByteBuffer>()
    private var isDispatchingHeldLines = false

    /// What this connection holds in memory, counted against its user (see `ClientMemory`): the changes not yet
    /// applied, the line being received so far, and the output written and not yet taken by the socket.
    private let memory: ClientMemory
    /// How often each limit was reached, for `stats`.
    private let counters: LimitCounters
    private var unfinishedLineBytes = 0
    /// What the output holds, for the memory books and the unread-answer bound.
    private var books = OutputBooks()
    /// The next heartbeat due, while a subscription asked for them.
    private var heartbeatTimer: Scheduled<Void>?
    /// The shutdown deadline, or the discard limit, while one is armed.
    private var closeTimer: Scheduled<Void>?
    /// While a line sits unfinished: when it has sat too long, the connection closes.
    private var partialLineTimer: Scheduled<Void>?

    /// This connection's number, unique for the daemon's life: its lane in the repository's fair turn.
    private let number: UInt64
    /// Drops the mutations this connection queued and that have not started, once it closes.
    private let dropQueuedMutations: @Sendable (Requester) -> Void

    /// How long a client that sent an oversized line may keep sending before the connection is cut.
    static let discardLimit = TimeAmount.seconds(5)

    init(
        dispatcher: RPCDispatcher<any DepotSession>,
        fanout: StateFanout,
        limits: LiveLimits,
        shutdownTimeout: TimeAmount,
        logger: Logger,
        connections: ConnectionCounter = ConnectionCounter(),
        memory: ClientMemory = ClientMemory(),
        counters: LimitCounters = LimitCounters(),
        dropQueuedMutations: @escaping @Sendable (Requester) -> Void = { _ in }
    ) {
        self.memory = memory
        self.counters = counters
        self.number = connections.nextNumber()
        self.dropQueuedMutations = dropQueuedMutations
        self.dispatcher = dispatcher
        self.fanout = fanout
        self.limits = limits
        self.shutdownTimeout = shutdownTimeout
        self.logger = logger
    }

    var requester: Requester { Requester(user: peer?.uid, connection: number) }

    /// What the connection is doing; for tests.
    var phase: ConnectionStateMachine.Phase { machine.phase }

    // MARK: Subscriptions, for the subscribe and unsubscribe methods

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
            fanout.group(for: context.eventLoop).add(self)
            isInSubscriberGroup = true
        }
        // Read after joining the group: any state published from here on reaches this loop after this task.
        let id = fanout.makeSubscriptionID()
        var subscription = Subscription(
            id: id, mode: request.mode, heartbeat: request.heartbeat.map(Self.timeAmount(seconds:)), sharedPipeline: shared)
        let current: StateFrame
        var resumed = false
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
                subscription.start(from: shared.current, resync: request.since != nil)
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
                subscription.start(from: current, resync: true)
            }
        } else {
            current = fanout.current
            subscription.start(from: current, resync: false)
        }
        subscriptions.add(subscription)
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

    /// The bound on a batch's answers, with the error that stands for one left out. What a batch holds while its
    /// slower calls run is on its user's books (from whichever thread its calls finish on); when that passes the
    /// user's bound, the connection is cut off on its loop, which lets the batch go.
    private func batchAnswerLimit(_ bytes: Int, context: ChannelHandlerContext) -> BatchAnswerLimit {
        let (counters, memory, limits, user) = (counters, memory, limits, peer?.uid)
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        return BatchAnswerLimit(
            bytes: bytes,
            leftOut: { bytes in
                counters.hit(.maxBatchAnswerBytes)
                return .batchAnswerLeftOut(passed: bytes)
            },
            held: { change in
                let total = memory.apply(ClientMemory.Change(exclusiveBytes: change), user: user)
                guard change > 0, user != 0, total > limits.maxMemoryPerUser else { return }
                eventLoop.execute { connection.value.heldAnswersPassedTheBound(total) }
            })
    }

    /// A batch's answers waiting for its slower calls carried the user's memory past its bound.
    private func heldAnswersPassedTheBound(_ total: Int) {
        guard machine.activity != nil else { return }
        cutOffOverMemoryBound(
            total, holding: "with answers a batch keeps until its last call is done",
            advice: "send calls whose answers are large on their own, not in a batch")
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
            perform(machine.subscriptionsChanged(by: -1))
        }
        leaveSubscriberGroupIfIdle()
    }

    /// What a subscription taken out of the set held goes off the books, and it leaves its shared pipeline.
    private func releaseHoldings(of subscription: Subscription) {
        var subscription = subscription
        books.memoryChange.merge(subscription.takeLedger())
        books.memoryChange.release(subscription.queuedBuffers)
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
    private func activate(_ ids: [String]) {
        guard !ids.isEmpty, machine.deliversNotifications else { return }
        let started = subscriptions.start(ids)
        for _ in 0..<started {
            fanout.subscriptionStarted()
        }
        perform(machine.subscriptionsChanged(by: started))
        leaveSubscriberGroupIfIdle()
        drainQueues()
    }

    /// Called by the subscriber group, on this loop, with published states in seq order (some may have been
    /// delivered before, and are ignored); writes what the socket takes, in one flush.
    func deliver(_ states: [StateFrame]) {
        guard context != nil, machine.deliversNotifications else { return }
        let limits = limits.current
        let (queueLimit, byteLimit) = (limits.subscriberQueueLimit, limits.subscriberQueueBytes)
        // Older states than the newest `queueLimit` would only be dropped from a full queue. Subscriptions whose
        // answer is not written yet queue them too, so they miss nothing between their start and the answer.
        subscriptions.enqueue(states.suffix(queueLimit), limit: queueLimit, byteLimit: byteLimit)
        drainQueues()
    }

    private func leaveSubscriberGroupIfIdle() {
        guard isInSubscriberGroup, let context, subscriptions.isEmpty else { return }
        fanout.group(for: context.eventLoop).remove(self)
        isInSubscriberGroup = false
    }

    /// Writes queued notifications while the socket takes them. Re-entrant calls (a flush can report the
    /// socket writable again synchronously) return at once; the outer call loops instead.
    private func drainQueues() {
        guard let context, !isDrainingQueues else { return }
        isDrainingQueues = true
        defer { isDrainingQueues = false }
        var wrote: Bool
        repeat {
            wrote = false
            var turn = 0
            while context.channel.isWritable, let output = subscriptions.next(turn: &turn) {
                wrote = true
                switch output {
                case .notification(let prefix, let state, let delta, let skipped):
                    if skipped > 0 {
                        counters.hit(.subscriberQueue, times: skipped)
                    }
                    emit(prefix, context: context)
                    // The state and delta come from the queue, which held them in the books: they stay held until written.
                    emit(state, context: context, alreadyHeld: true)
                    if let delta {
                        emit(delta, context: context, alreadyHeld: true)
                    }
                    emit(StateNotification.suffix, context: context)
                case .ended(let subscription, let reason):
                    let ended = SubscriptionEnded(subscription: subscription.id, reason: reason)
                    emit(ended.line(allocator: context.channel.allocator), context: context)
                    logger.info("subscription ended", metadata: ["subscription": "\(ended.subscription)", "reason": "\(reason)"])
                    letGo(subscription)
                }
            }
            if wrote {
                needsFlush = false
                flushOutput()
            }
        } while wrote && self.context != nil && context.channel.isWritable && subscriptions.hasOutput
        settleMemory()
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
        guard let context, machine.deliversNotifications else { return }
        var wrote = false
        for (subscription, seq) in subscriptions.dueHeartbeats(at: .now()) where context.channel.isWritable {
            let heartbeat = Heartbeat(subscription: subscription, epoch: fanout.epoch, seq: seq)
            emit(heartbeat.line(allocator: context.channel.allocator), context: context)
            wrote = true
        }
        if wrote {
            flushOutput()
            settleMemory()
        }
        scheduleHeartbeats()
    }

    private func leaveAllSubscriptions() {
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

    // MARK: The channel's life

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        logger.debug("connected")
        context.fireChannelActive()
    }

    /// The client's credentials, as `ConnectionAdmission` read them: its pid and uid go on every log line about this
    /// connection.
    private func admitted(_ peer: PeerCredentials?) {
        guard let peer else { return }
        self.peer = peer
        logger[metadataKey: "peer_pid"] = "\(peer.pid)"
        logger[metadataKey: "peer_uid"] = "\(peer.uid)"
        logger[metadataKey: "peer_gid"] = "\(peer.gid)"
        if let name = peer.processName { logger[metadataKey: "peer_comm"] = "\(name)" }
    }

    /// Logs a request that changes state, naming the method and the client.
    func noteMutation(_ method: String, _ detail: String) -> MutationNote {
        let request = "\(method)\(detail.isEmpty ? "" : " ")\(detail)"
        logger.info("\(request) requested", metadata: ["method": "\(method)"])
        let logger = logger
        return MutationNote { outcome in
            logger.info("\(request): \(outcome)", metadata: ["method": "\(method)"])
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
        self.context = nil
    }

    /// The connection is gone: its subscriptions end, and answers still coming are not wanted. Its mutations that
    /// have not started are dropped; those under way still run, for every subscriber, and only the call back to
    /// this connection is withdrawn.
    private func closed() {
        guard machine.phase != .closed else { return }
        // Answers still coming are withdrawn first: the dropped mutations then finish without encoding an answer.
        let withdrawals = pendingAnswers.values
        pendingAnswers = [:]
        for withdraw in withdrawals {
            withdraw()
        }
        dropQueuedMutations(requester)
        releaseInput()
        machine.channelClosed()
        closeTimer?.cancel()
        closeTimer = nil
        partialLineTimer?.cancel()
        partialLineTimer = nil
        leaveAllSubscriptions()
        // Output still in NIO's hands is let go when its writes fail, as the channel closes.
        settleMemory()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let admission as ConnectionAdmission.Admitted:
            admitted(admission.peer)
        case ChannelEvent.inputClosed:
            perform(machine.inputClosed())
        case is ChannelShouldQuiesceEvent:
            let milliseconds = shutdownTimeout.nanoseconds / 1_000_000
            armCloseTimer(after: shutdownTimeout, context: context) { machine in
                guard machine.quiesceDeadlineReached() == .close else { return nil }
                return "its answers were not all written within \(milliseconds) ms of the shutdown; closing it"
            }
            perform(machine.quiesce())
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)")
        context.close(promise: nil)
    }

    // MARK: Reading

    func read(context: ChannelHandlerContext) {
        if machine.readRequested(isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            drainQueues()
            dispatchHeldLines()
            resumeReadingIfAllowed()
        }
        context.fireChannelWritabilityChanged()
    }

    private func resumeReadingIfAllowed() {
        guard let context, machine.mayResumeReading(isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) else {
            return
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .line(let line):
            partialLineTimer?.cancel()
            partialLineTimer = nil
            lineFinished()
            switch machine.lineRead(isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) {
            case .dispatch:
                handle(line: line, context: context)
            case .hold:
                if (machine.activity?.pendingAnswers ?? 0) >= limits.maxPendingRequests {
                    counters.hit(.maxPendingRequests)
                }
                heldLines.append(line)
                books.memoryChange.exclusiveBytes += line.readableBytes
            case .ignore:
                break
            }
        case .unfinished(_, let held):
            if partialLineTimer == nil {
                armPartialLineTimer(context: context)
            }
            lineGrew(to: held)
        case .tooLong(let limit):
            lineFinished()
            guard machine.lineTooLong() == .refuseAndDiscard else { return }
            refuseOversizedLine(limit: limit, context: context)
        }
        settleMemory()
    }

    /// More of an unfinished line came: it counts against the user and against all users' unfinished lines.
    private func lineGrew(to bytes: Int) {
        let added = bytes - unfinishedLineBytes
        unfinishedLineBytes = bytes
        books.memoryChange.exclusiveBytes += added
        let total = memory.addUnfinished(added)
        let limit = limits.maxUnfinishedLineBytes
        guard total > limit, machine.activity != nil else { return }
        cutOff(
            .maxUnfinishedLineBytes,
            "unfinished lines from all clients hold \(total) bytes, past --max-unfinished-line-bytes (\(limit)); this one's has \(bytes)",
            tell: .unfinishedLinesOverBound(total: total, bound: limit)
        )
    }

    /// The line being received ended (or was dropped): its bytes are no longer held by this connection.
    private func lineFinished() {
        guard unfinishedLineBytes > 0 else { return }
        books.memoryChange.exclusiveBytes -= unfinishedLineBytes
        memory.addUnfinished(-unfinishedLineBytes)
        unfinishedLineBytes = 0
    }

    /// The connection is gone: its unfinished line and held lines are let go.
    private func releaseInput() {
        lineFinished()
        for line in heldLines {
            books.memoryChange.exclusiveBytes -= line.readableBytes
        }
        heldLines.removeAll()
    }

    /// A line began: if it is not finished within the partial-line timeout, the sender is cut off.
    private func armPartialLineTimer(context: ChannelHandlerContext) {
        partialLineTimer?.cancel()
        let timeout = limits.partialLineTimeout
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        partialLineTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) {
            connection.value.partialLineTimedOut(timeout)
        }
    }

    private func partialLineTimedOut(_ timeout: Duration) {
        partialLineTimer = nil
        counters.hit(.partialLineTimeout)
        logger.notice("closing the connection: a line was left unfinished for \(timeout) (--partial-line-timeout)")
        context?.close(promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded()
        settleMemory()
        context.fireChannelReadComplete()
    }

    // MARK: Requests

    private func handle(line: ByteBuffer, context: ChannelHandlerContext) {
        let message: IncomingMessage? = line.withUnsafeReadableBytes { bytes in
            // A line of nothing but whitespace (an empty line, a stray CR) is not a message.
            guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return nil }
            return IncomingMessage.decode(bytes, maxBatchRequests: limits.maxBatchRequests)
        }
        guard let message else { return }

        _ = subscriptions.takeAwaitingAnswer()
        if case .batchTooLarge = message {
            counters.hit(.maxBatchRequests)
        }
        let outcome = dispatcher.dispatch(message, context: self, limit: batchAnswerLimit(limits.maxBatchAnswerBytes, context: context))
        let newSubscriptions = subscriptions.takeAwaitingAnswer()

        switch outcome {
        case .nothing:
            activate(newSubscriptions)
        case .now(let answer):
            write(answer)
            if !newSubscriptions.isEmpty {
                flushIfNeeded()
                activate(newSubscriptions)
            }
        case .later(let pending):
            // Each call of a batch waiting counts, so one line cannot queue more than the bound of work.
            let count = pending.pendingCount
            machine.answerPending(count: count)
            let number = nextAnswerNumber
            nextAnswerNumber += 1
            // The answer comes on whichever thread finished the work; it is written on this loop.
            let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            pendingAnswers[number] = pending.whenReady { answer in
                eventLoop.execute {
                    connection.value.answerArrived(number, answer: answer, newSubscriptions: newSubscriptions, count: count)
                }
            }
        }
    }

    private func answerArrived(_ number: Int, answer: EncodedMessage?, newSubscriptions: [String], count: Int) {
        // Withdrawn: the connection closed while the answer was on its way here.
        guard pendingAnswers.removeValue(forKey: number) != nil else { return }
        if let answer, machine.activity != nil {
            write(answer)
            flushIfNeeded()
        }
        activate(newSubscriptions)
        perform(machine.answerWritten(count: count))
        dispatchHeldLines()
        resumeReadingIfAllowed()
        settleMemory()
    }

    /// Dispatches the held lines, oldest first, while the connection may take requests again. Re-entrant calls (a
    /// flush can report the socket writable synchronously) return at once; the outer call goes on.
    private func dispatchHeldLines() {
        guard let context, !heldLines.isEmpty, !isDispatchingHeldLines else { return }
        isDispatchingHeldLines = true
        defer { isDispatchingHeldLines = false }
        while !heldLines.isEmpty,
            machine.nextHeldLine(isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests)
        {
            let line = heldLines.removeFirst()
            books.memoryChange.exclusiveBytes -= line.readableBytes
            handle(line: line, context: context)
        }
        flushIfNeeded()
        perform(machine.heldLinesDispatched())
    }

    private func write(_ answer: EncodedMessage) {
        guard let context else { return }
        var bytes = 0
        for part in answer.finishLine() {
            emit(part, context: context)
            bytes += part.readableBytes
        }
        needsFlush = true
        // Answers cannot be dropped or merged: a client that lets them pile up is cut off.
        let limit = limits.maxUnreadAnswerBytes
        if books.answered(bytes: bytes, limit: limit), machine.activity != nil {
            let unread = books.unreadAnswers
            cutOff(
                .maxUnreadAnswerBytes,
                "it left \(unread.count) answers (\(unread.bytes) bytes) unread, past --max-unread-answer-bytes (\(limit))")
        }
    }

    private func flushIfNeeded() {
        guard needsFlush, context != nil else { return }
        needsFlush = false
        flushOutput()
    }

    // MARK: Output and memory

    /// Writes `buffer` (not flushed), holding it in the books until the socket has taken it; `alreadyHeld` when a
    /// subscription's queue held it there already.
    private func emit(_ buffer: ByteBuffer, context: ChannelHandlerContext, alreadyHeld: Bool = false) {
        context.write(wrapOutboundOut(buffer), promise: nil)
        books.wrote(buffer, alreadyHeld: alreadyHeld)
    }

    /// Flushes, and lets the output written since the last flush go from the books once the socket has taken it
    /// (or the write failed, as the channel closed).
    private func flushOutput() {
        guard let context else { return }
        if let flushed = books.flushing() {
            let taken = context.eventLoop.makePromise(of: Void.self)
            // Writes complete in order: this empty one completes once everything before it is written.
            context.write(wrapOutboundOut(ByteBuffer()), promise: taken)
            let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
            taken.futureResult.assumeIsolated().whenComplete { _ in
                connection.value.outputTaken(flushed)
            }
        }
        context.flush()
    }

    private func outputTaken(_ flushed: OutputBooks.Flushed) {
        books.taken(flushed)
        settleMemory()
    }

    /// Applies what this connection took and let go to its user's account. When that passes the user's bound (root
    /// is exempt), this connection, which just took more, first lets its snapshot-mode subscriptions skip to their
    /// newest state; if that is not enough, it is cut off.
    private func settleMemory() {
        books.memoryChange.merge(subscriptions.takeLedgers())
        guard !books.memoryChange.isEmpty else { return }
        let change = books.takeMemoryChange()
        let user = peer?.uid
        var total = memory.apply(change, user: user)
        let limit = limits.maxMemoryPerUser
        guard change.takes, user != 0, total > limit, machine.activity != nil || machine.phase == .discarding else { return }
        let trimmed = subscriptions.trimToNewest()
        if !trimmed.isEmpty {
            total = memory.apply(trimmed, user: user)
            logger.debug("over --max-memory-per-user: this connection's subscriptions skip to their newest state")
            guard total > limit else { return }
        }
        cutOffOverMemoryBound(
            total, holding: "lines unfinished or waiting, answers and notifications unread",
            advice: "read your answers and notifications, and send whole lines")
    }

    /// Cuts the connection off because its user's connections hold `total` bytes, past --max-memory-per-user:
    /// `holding` says what they hold (for the log), `advice` what the client should do instead.
    private func cutOffOverMemoryBound(_ total: Int, holding: String, advice: String) {
        let limit = limits.maxMemoryPerUser
        cutOff(
            .maxMemoryPerUser,
            "the connections of uid \(peer.map { String($0.uid) } ?? "?") hold \(total) bytes in depotd (\(holding)), past --max-memory-per-user (\(limit))",
            tell: .memoryPerUserOverBound(total: total, bound: limit, advice: advice)
        )
    }

    /// Closes the connection at once, with `reason` in the log. `tell` goes to the client first, as a limitExceeded
    /// error line, when its socket takes it; the connection then closes once that is written, or a second later.
    private func cutOff(_ limit: LimitCounters.Limit, _ reason: String, tell message: RPCError? = nil) {
        guard let context, machine.cutOff() == .close else { return }
        counters.hit(limit)
        logger.warning("closing the connection: \(reason)")
        releaseInput()
        needsFlush = false
        let channel = context.channel
        guard let message, channel.isWritable else {
            flushOutput()
            channel.close(promise: nil)
            return
        }
        write(RPCResponse(id: .null, outcome: .failure(message)).line)
        needsFlush = false
        flushOutput()
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            channel.close(promise: nil)
        }
        armCloseTimer(after: .seconds(1), context: context) { _ in "its socket did not take the error line within a second" }
    }

    private func refuseOversizedLine(limit: Int, context: ChannelHandlerContext) {
        counters.hit(.maxMessageBytes)
        releaseInput()
        logger.warning("closing a connection that sent a line longer than \(limit) bytes")
        let error = RPCError.invalidRequest(
            "the message is longer than \(limit) bytes, the limit set by --max-message-bytes; closing the connection"
        )
        write(RPCResponse(id: .null, outcome: .failure(error)).line)
        // Close our side once the answer is out, but keep reading (the decoder discards everything now) until
        // the client closes: closing with its unread bytes in our buffer would reset the connection and
        // could destroy the answer before the client reads it. A client that never stops sending is cut off.
        needsFlush = false
        flushOutput()
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        armCloseTimer(after: Self.discardLimit, context: context) { machine in
            machine.discardLimitReached() == .close ? "it kept sending after its oversized line; cutting it off" : nil
        }
    }

    // MARK: Closing

    /// Carries out a close the state machine decided: flushes what has been written, then closes. A peer that
    /// has stopped reading (its socket is not writable) would hold the flush forever, so it is closed at once:
    /// what it has not read is lost either way.
    private func perform(_ action: ConnectionStateMachine.CloseAction) {
        guard action == .close, let context else { return }
        needsFlush = false
        flushOutput()
        let channel = context.channel
        guard channel.isWritable else {
            channel.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Closes the channel at once after `delay` if `expired` (given the state machine) says why; a later timer
    /// replaces an earlier one.
    private func armCloseTimer(
        after delay: TimeAmount,
        context: ChannelHandlerContext,
        expired: @escaping (inout ConnectionStateMachine) -> String?
    ) {
        closeTimer?.cancel()
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            let handler = connection.value
            handler.closeTimer = nil
            guard let reason = expired(&handler.machine), let context = handler.context else { return }
            handler.logger.warning("\(reason)")
            context.close(promise: nil)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }
}
