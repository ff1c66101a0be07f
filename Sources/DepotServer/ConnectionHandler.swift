import DepotCore
import DepotJSON
import DepotPipeline
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// One client connection: reads JSON-RPC lines, dispatches them and writes their answers, and carries out its
/// bounds; its parts do the rest.
///
/// Everything here runs on the connection's event loop. Reads are answered inline (over a large collection through
/// a pipeline, on the server's CPU pool); answers that come later (mutations) call back from whichever thread finished
/// them and are written here, so several requests can be in flight and answers can come back in any order.
///
/// The parts, each a type of its own: `ConnectionAdmission` (caps, credentials) before this handler;
/// `ConnectionStateMachine`, which decides when to read, hold, dispatch and close, and holds the held lines and
/// pending answers; `ConnectionOutput` (writes, flushes, the unread answers); `ConnectionMemory` (everything the
/// connection holds, on its user's account); `ConnectionSubscriptions` (subscribing, delivering, heartbeats, over
/// `SubscriptionSet`'s queues). This handler wires them, carries out the machine's actions and owns the close and
/// partial-line timers.
final class ConnectionHandler: ChannelDuplexHandler, DepotSession, SubscriptionsHost {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: RPCDispatcher<any DepotSession>
    private let limits: LiveLimits
    /// How long a shutdown waits for this connection's pending answers before closing it anyway.
    private let shutdownTimeout: TimeAmount
    private var logger: Logger

    /// Read by the wiring's tests on the loop, to see that the handler drove it.
    private(set) var machine = ConnectionStateMachine()
    private var context: ChannelHandlerContext?
    private(set) var peer: PeerCredentials?
    /// The number the next answer that comes later goes by (the machine keeps those pending, with their withdrawals).
    private var nextAnswerNumber = 0

    /// How often each limit was reached, for `stats`.
    private let counters: LimitCounters
    /// Everything this connection holds in memory, on its user's account.
    private let memory: ConnectionMemory
    /// Writes, flushes, and the unread answers.
    private let output: ConnectionOutput
    private let subscriptions: ConnectionSubscriptions
    /// The shutdown deadline or the discard limit, and the partial-line deadline.
    private let timers = ConnectionTimers()

    /// This connection's number, unique for the daemon's life: its lane in the repository's fair turn.
    let number: UInt64
    /// Drops the mutations this connection queued and that have not started, once it closes.
    let dropQueuedMutations: @Sendable (Requester) -> Void

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
        self.counters = counters
        self.number = connections.nextNumber()
        self.dropQueuedMutations = dropQueuedMutations
        self.dispatcher = dispatcher
        self.limits = limits
        self.shutdownTimeout = shutdownTimeout
        self.logger = logger
        self.memory = ConnectionMemory(account: memory, limits: limits)
        self.output = ConnectionOutput(memory: self.memory)
        self.subscriptions = ConnectionSubscriptions(
            fanout: fanout, limits: limits, counters: counters, output: output, memory: self.memory, logger: logger)
        output.taken = { [weak self] in self?.settleMemory() }
    }

    var requester: Requester { Requester(user: peer?.uid, connection: number) }

    // MARK: The channel's life

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        output.attach(context)
        subscriptions.attach(context, host: self)
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
        memory.user = peer.uid
        logger.identify(peer)
        subscriptions.peer = peer
        subscriptions.logger = logger
    }

    /// Logs a request that changes state, naming the method and the client.
    func noteMutation(_ method: String, _ detail: String) -> MutationNote {
        MutationNote(method, detail, logger: logger)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
        self.context = nil
        output.attach(nil)
        subscriptions.attach(nil, host: self)
    }

    /// The connection is gone: its subscriptions end, and answers still coming are not wanted. Its mutations that
    /// have not started are dropped; those under way still run, for every subscriber, and only the call back to
    /// this connection is withdrawn.
    private func closed() {
        guard machine.phase != .closed else { return }
        // Answers still coming are withdrawn first: the dropped mutations then finish without encoding an answer.
        machine.channelClosed()
        releaseInput()
        dropQueuedMutations(requester)
        timers.cancelAll()
        subscriptions.leaveAll()
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
            subscriptions.canWrite()
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
            timers.lineFinished()
            memory.lineFinished()
            switch machine.lineRead(line, isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) {
            case .dispatch:
                handle(line: line, context: context)
            case .hold:
                if (machine.activity?.pendingAnswers ?? 0) >= limits.maxPendingRequests {
                    counters.hit(.maxPendingRequests)
                }
                memory.holdLine(line)
            case .ignore:
                break
            }
        case .unfinished(_, let held):
            if !timers.isPartialLineArmed {
                armPartialLineTimer(context: context)
            }
            lineGrew(to: held)
        case .tooLong(let limit):
            memory.lineFinished()
            guard machine.lineTooLong() == .refuseAndDiscard else { return }
            releaseInput()
            refuseOversizedLine(limit: limit, context: context)
        }
        settleMemory()
    }

    /// The connection takes no more requests: what the machine released goes — the answers still coming are withdrawn
    /// (a mutation that finishes later neither encodes an answer nor keeps the connection), the held lines and the
    /// unfinished one leave the books.
    private func releaseInput() {
        let released = machine.takeReleased()
        for withdraw in released.withdrawals {
            withdraw()
        }
        memory.lineFinished()
        for line in released.lines {
            memory.releaseLine(line)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        output.flushIfNeeded()
        settleMemory()
        context.fireChannelReadComplete()
    }

    // MARK: Requests

    private func handle(line: ByteBuffer, context: ChannelHandlerContext) {
        let message = line.withUnsafeReadableBytes { IncomingMessage.decodeUnlessBlank($0, maxBatchRequests: limits.maxBatchRequests) }
        guard let message else { return }

        _ = subscriptions.takeAwaitingAnswer()
        if case .batchTooLarge = message {
            counters.hit(.maxBatchRequests)
        }
        let outcome = dispatcher.dispatch(message, context: self, limit: batchAnswerLimit(limits.maxBatchAnswerBytes, context: context))
        let newSubscriptions = subscriptions.takeAwaitingAnswer()

        switch outcome {
        case .nothing:
            subscriptions.activate(newSubscriptions)
        case .now(let answer):
            write(answer)
            if !newSubscriptions.isEmpty {
                output.flushIfNeeded()
                subscriptions.activate(newSubscriptions)
            }
        case .later(let pending):
            // Each call of a batch waiting counts, so one line cannot queue more than the bound of work.
            let number = nextAnswerNumber
            nextAnswerNumber += 1
            // The answer comes on whichever thread finished the work; it is written on this loop.
            let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            let withdrawal = pending.whenReady { answer in
                eventLoop.execute {
                    connection.value.answerArrived(number, answer: answer, newSubscriptions: newSubscriptions)
                }
            }
            machine.answerPending(number, count: pending.pendingCount, withdrawal: withdrawal)
        }
    }

    private func answerArrived(_ number: Int, answer: EncodedMessage?, newSubscriptions: [String]) {
        // Withdrawn: the connection stopped taking requests, or closed, while the answer was on its way here.
        guard machine.isAwaiting(answer: number) else { return }
        if let answer {
            write(answer)
            output.flushIfNeeded()
        }
        subscriptions.activate(newSubscriptions)
        perform(machine.answerWritten(number))
        dispatchHeldLines()
        resumeReadingIfAllowed()
        settleMemory()
    }

    /// Dispatches the held lines, oldest first, while the connection may take requests again. Re-entrant calls (a
    /// flush can report the socket writable synchronously) return at once; the outer call goes on.
    private func dispatchHeldLines() {
        guard let context, machine.startDispatchingHeldLines() else { return }
        while let line = machine.nextHeldLine(isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) {
            memory.releaseLine(line)
            handle(line: line, context: context)
        }
        output.flushIfNeeded()
        perform(machine.heldLinesDispatched())
    }

    /// Writes an answer; a client that leaves too many unread is cut off.
    private func write(_ answer: EncodedMessage) {
        if let cut = output.write(answer, unreadLimit: limits.maxUnreadAnswerBytes), machine.activity != nil {
            cutOff(cut)
        }
    }

    // MARK: Subscriptions (`ConnectionSubscriptions`)

    func subscribe(_ request: SubscribeRequest) throws(RPCError) -> SubscriptionStart {
        try subscriptions.subscribe(request)
    }

    func unsubscribe(_ id: String) -> Bool {
        subscriptions.unsubscribe(id)
    }

    var deliversNotifications: Bool { machine.deliversNotifications }

    func subscriptionsChanged(by count: Int) {
        perform(machine.subscriptionsChanged(by: count))
    }

    // MARK: Bounds

    /// Applies what this connection took and let go to its user's account. When that passes the user's bound (root
    /// is exempt), this connection, which just took more, first lets its snapshot-mode subscriptions skip to their
    /// newest state; if that is not enough, it is cut off.
    func settleMemory() {
        memory.merge(subscriptions.takeLedgers())
        guard var total = memory.settle(), machine.activity != nil || machine.phase == .discarding else { return }
        let trimmed = subscriptions.trimToNewest()
        if !trimmed.isEmpty {
            total = memory.apply(trimmed)
            logger.debug("over --max-memory-per-user: this connection's subscriptions skip to their newest state")
            guard total > memory.bound else { return }
        }
        cutOff(
            memory.overBound(
                total, holding: "lines unfinished or waiting, answers and notifications unread",
                advice: "read your answers and notifications, and send whole lines"))
    }

    /// The bound on a batch's answers (see `ConnectionMemory.batchAnswerLimit`): past the user's bound, the connection
    /// is cut off on its loop, which lets the batch go.
    private func batchAnswerLimit(_ bytes: Int, context: ChannelHandlerContext) -> BatchAnswerLimit {
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        return memory.batchAnswerLimit(bytes, counters: counters) { total in
            eventLoop.execute { connection.value.heldAnswersPassedTheBound(total) }
        }
    }

    /// A batch's answers waiting for its slower calls carried the user's memory past its bound.
    private func heldAnswersPassedTheBound(_ total: Int) {
        guard machine.activity != nil else { return }
        cutOff(
            memory.overBound(
                total, holding: "with answers a batch keeps until its last call is done",
                advice: "send calls whose answers are large on their own, not in a batch"))
    }

    /// Closes the connection at once, with the reason in the log. What it is told goes to the client first, as a
    /// limitExceeded error line, when its socket takes it; the connection then closes once that is written, or a
    /// second later.
    private func cutOff(_ cut: CutOff) {
        guard let context, machine.cutOff() == .close else { return }
        counters.hit(cut.limit)
        logger.warning("closing the connection: \(cut.reason)")
        releaseInput()
        let channel = context.channel
        guard let message = cut.tell, channel.isWritable else {
            output.flush()
            channel.close(promise: nil)
            return
        }
        write(RPCResponse(id: .null, outcome: .failure(message)).line)
        output.flush { channel.close(promise: nil) }
        armCloseTimer(after: .seconds(1), context: context) { _ in "its socket did not take the error line within a second" }
    }

    private func refuseOversizedLine(limit: Int, context: ChannelHandlerContext) {
        counters.hit(.maxMessageBytes)
        logger.warning("closing a connection that sent a line longer than \(limit) bytes")
        let error = RPCError.invalidRequest(
            "the message is longer than \(limit) bytes, the limit set by --max-message-bytes; closing the connection"
        )
        write(RPCResponse(id: .null, outcome: .failure(error)).line)
        // Close our side once the answer is out, but keep reading (the decoder discards everything now) until
        // the client closes: closing with its unread bytes in our buffer would reset the connection and
        // could destroy the answer before the client reads it. A client that never stops sending is cut off.
        let channel = context.channel
        output.flush { channel.close(mode: .output, promise: nil) }
        armCloseTimer(after: Self.discardLimit, context: context) { machine in
            machine.discardLimitReached() == .close ? "it kept sending after its oversized line; cutting it off" : nil
        }
    }

    /// More of an unfinished line came: it counts against the user and against all users' unfinished lines.
    private func lineGrew(to bytes: Int) {
        guard let cut = memory.lineGrew(to: bytes), machine.activity != nil else { return }
        cutOff(cut)
    }

    /// A line began: if it is not finished within the partial-line timeout, the sender is cut off.
    private func armPartialLineTimer(context: ChannelHandlerContext) {
        let timeout = limits.partialLineTimeout
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        timers.armPartialLine(after: TimeAmount(timeout), on: context.eventLoop) {
            let handler = connection.value
            handler.counters.hit(.partialLineTimeout)
            handler.logger.notice("closing the connection: a line was left unfinished for \(timeout) (--partial-line-timeout)")
            handler.context?.close(promise: nil)
        }
    }

    // MARK: Closing

    /// Carries out a close the state machine decided: flushes what has been written, then closes. A peer that
    /// has stopped reading (its socket is not writable) would hold the flush forever, so it is closed at once:
    /// what it has not read is lost either way.
    private func perform(_ action: ConnectionStateMachine.CloseAction) {
        guard action == .close, let context else { return }
        let channel = context.channel
        guard channel.isWritable else {
            output.flush()
            channel.close(promise: nil)
            return
        }
        output.flush { channel.close(promise: nil) }
    }

    /// Closes the channel at once after `delay` if `expired` (given the state machine) says why; a later timer
    /// replaces an earlier one.
    private func armCloseTimer(
        after delay: TimeAmount,
        context: ChannelHandlerContext,
        expired: @escaping (inout ConnectionStateMachine) -> String?
    ) {
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        timers.armClose(after: delay, on: context.eventLoop) {
            let handler = connection.value
            guard let reason = expired(&handler.machine), let context = handler.context else { return }
            handler.logger.warning("\(reason)")
            context.close(promise: nil)
        }
    }
}
