import DepotCore
import DepotJSON
import DepotPipeline
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// One client connection: reads JSON-RPC lines, dispatches them and writes their answers; its subscriptions
/// (ConnectionHandler+Subscriptions) and its bounds (ConnectionHandler+Bounds) are carried out beside.
///
/// Everything here runs on the connection's event loop. Reads are answered inline (over a large collection through
/// a pipeline, on the server's CPU pool); answers that come later (mutations) call back from whichever thread finished
/// them and are written here, so several requests can be in flight and answers can come back in any order.
///
/// The parts, each with its own tests: `ConnectionAdmission` (caps, credentials) before this handler;
/// `ConnectionStateMachine`, which decides when to read, hold, dispatch and close, and holds the held lines and
/// pending answers; `ConnectionOutput` (writes, flushes, the memory books); `SubscriptionSet` (the subscriptions'
/// queues). This handler carries out their actions and owns the timers.
final class ConnectionHandler: ChannelDuplexHandler, DepotSession {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let dispatcher: RPCDispatcher<any DepotSession>
    let fanout: StateFanout
    let limits: LiveLimits
    /// How long a shutdown waits for this connection's pending answers before closing it anyway.
    let shutdownTimeout: TimeAmount
    var logger: Logger

    var machine = ConnectionStateMachine()
    var context: ChannelHandlerContext?
    private(set) var peer: PeerCredentials?
    var subscriptions = SubscriptionSet()
    var isInSubscriberGroup = false
    /// The number the next answer that comes later goes by (the machine keeps those pending, with their withdrawals).
    var nextAnswerNumber = 0

    /// What this connection's user holds in memory (see `ClientMemory`), its share kept on `output`'s books.
    let memory: ClientMemory
    /// How often each limit was reached, for `stats`.
    let counters: LimitCounters
    var unfinishedLineBytes = 0
    /// Writes, flushes, and keeps the books of what this connection holds.
    let output = ConnectionOutput()
    /// The next heartbeat due, while a subscription asked for them.
    var heartbeatTimer: Scheduled<Void>?
    /// The shutdown deadline, or the discard limit, while one is armed.
    private var closeTimer: Scheduled<Void>?
    /// While a line sits unfinished: when it has sat too long, the connection closes.
    var partialLineTimer: Scheduled<Void>?

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
        self.memory = memory
        self.counters = counters
        self.number = connections.nextNumber()
        self.dropQueuedMutations = dropQueuedMutations
        self.dispatcher = dispatcher
        self.fanout = fanout
        self.limits = limits
        self.shutdownTimeout = shutdownTimeout
        self.logger = logger
        output.taken = { [weak self] in self?.settleMemory() }
    }

    var requester: Requester { Requester(user: peer?.uid, connection: number) }

    /// What the connection is doing — for tests: the wiring's tests read it on the loop to see the handler drove its
    /// machine (the machine's own tests read its phase directly); nothing else needs it.
    var phase: ConnectionStateMachine.Phase { machine.phase }

    // MARK: The channel's life

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        output.attach(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        logger.debug("connected")
        context.fireChannelActive()
    }

    /// The client's credentials, as `ConnectionAdmission` read them: its pid and uid go on every log line about this
    /// connection.
    func admitted(_ peer: PeerCredentials?) {
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
        output.attach(nil)
    }

    /// The connection is gone: its subscriptions end, and answers still coming are not wanted. Its mutations that
    /// have not started are dropped; those under way still run, for every subscriber, and only the call back to
    /// this connection is withdrawn.
    func closed() {
        guard machine.phase != .closed else { return }
        // Answers still coming are withdrawn first: the dropped mutations then finish without encoding an answer.
        machine.channelClosed()
        releaseInput()
        dropQueuedMutations(requester)
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
            if isInSubscriberGroup {
                // States held unencoded while the socket was full are handed over now.
                fanout.group(for: context.eventLoop).connectionCanWrite(self)
            }
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
            switch machine.lineRead(line, isWritable: context.channel.isWritable, maxPendingAnswers: limits.maxPendingRequests) {
            case .dispatch:
                handle(line: line, context: context)
            case .hold:
                if (machine.activity?.pendingAnswers ?? 0) >= limits.maxPendingRequests {
                    counters.hit(.maxPendingRequests)
                }
                output.books.memoryChange.exclusiveBytes += line.readableBytes
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
            releaseInput()
            refuseOversizedLine(limit: limit, context: context)
        }
        settleMemory()
    }

    /// The line being received ended (or was dropped): its bytes are no longer held by this connection.
    func lineFinished() {
        guard unfinishedLineBytes > 0 else { return }
        output.books.memoryChange.exclusiveBytes -= unfinishedLineBytes
        memory.addUnfinished(-unfinishedLineBytes)
        unfinishedLineBytes = 0
    }

    /// The connection takes no more requests: what the machine released goes — the answers still coming are withdrawn
    /// (a mutation that finishes later neither encodes an answer nor keeps the connection), the held lines and the
    /// unfinished one leave the books.
    func releaseInput() {
        let released = machine.takeReleased()
        for withdraw in released.withdrawals {
            withdraw()
        }
        lineFinished()
        for line in released.lines {
            output.books.memoryChange.exclusiveBytes -= line.readableBytes
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        output.flushIfNeeded()
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
                output.flushIfNeeded()
                activate(newSubscriptions)
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
        activate(newSubscriptions)
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
            output.books.memoryChange.exclusiveBytes -= line.readableBytes
            handle(line: line, context: context)
        }
        output.flushIfNeeded()
        perform(machine.heldLinesDispatched())
    }

    /// Writes an answer; a client that leaves too many unread is cut off.
    func write(_ answer: EncodedMessage) {
        let limit = limits.maxUnreadAnswerBytes
        if let unread = output.write(answer, unreadLimit: limit), machine.activity != nil {
            cutOff(
                .maxUnreadAnswerBytes,
                "it left \(unread.count) answers (\(unread.bytes) bytes) unread, past --max-unread-answer-bytes (\(limit))")
        }
    }

    // MARK: Closing

    /// Carries out a close the state machine decided: flushes what has been written, then closes. A peer that
    /// has stopped reading (its socket is not writable) would hold the flush forever, so it is closed at once:
    /// what it has not read is lost either way.
    func perform(_ action: ConnectionStateMachine.CloseAction) {
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
    func armCloseTimer(
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
