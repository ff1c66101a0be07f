import DepotCore
import DepotJSON
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// Sent down every connection's pipeline when the server shuts down: stop reading, finish what is in
/// flight, then close.
struct ServerShutdownEvent: Sendable {}

/// One client connection: reads JSON-RPC lines, dispatches them, writes answers, and delivers the
/// notifications of the connection's subscriptions from their bounded queues.
///
/// Everything here runs on the connection's event loop. Reads are answered inline; mutations are awaited
/// in a task and answered when they finish, so several requests can be in flight and answers can come back
/// in any order. The connection stops reading while its socket is not writable or too many requests are
/// pending, so a client that does not read its answers cannot make the daemon buffer without bound.
final class ConnectionHandler: ChannelDuplexHandler, DepotSession {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: RPCDispatcher<any DepotSession>
    private let fanout: StateFanout
    private let limits: LiveLimits
    private var logger: Logger

    private var context: ChannelHandlerContext?
    private(set) var peer: PeerCredentials?
    private var subscriptions: [Subscription] = []
    /// The answers still coming, each with the withdrawal that stops it from calling back once the connection
    /// is gone: closing withdraws them all, so no finished mutation writes to, or keeps, a closed connection.
    private var pendingAnswers: [Int: Withdrawal] = [:]
    private var nextAnswerNumber = 0
    private var isInSubscriberGroup = false
    /// Subscriptions created by the message being dispatched; they start once its answer is written.
    private var subscriptionsAwaitingAnswer: [String] = []
    private var pendingRequests = 0
    private var isReadHeld = false
    private var isInputClosed = false
    private var isShuttingDown = false
    private var isClosing = false
    private var needsFlush = false
    private var isDrainingQueues = false
    /// Set after an oversized line: input is read and dropped until the client closes.
    private var isDiscardingInput = false

    /// How long a client that sent an oversized line may keep sending before the connection is cut.
    static let discardLimit = TimeAmount.seconds(5)

    init(dispatcher: RPCDispatcher<any DepotSession>, fanout: StateFanout, limits: LiveLimits, logger: Logger) {
        self.dispatcher = dispatcher
        self.fanout = fanout
        self.limits = limits
        self.logger = logger
    }

    // MARK: Subscriptions, for the subscribe and unsubscribe methods

    /// Creates a subscription; it starts receiving states once the answer to the current message is written.
    func subscribe() throws(RPCError) -> String {
        guard subscriptions.count < limits.maxSubscriptions else {
            throw .limitExceeded(
                "this connection already holds \(limits.maxSubscriptions) subscriptions, the most one connection may; unsubscribe one or open another connection"
            )
        }
        let id = fanout.makeSubscriptionID()
        subscriptions.append(Subscription(id: id))
        subscriptionsAwaitingAnswer.append(id)
        logger.info("subscribed", metadata: ["subscription": "\(id)"])
        return id
    }

    /// Ends the connection's subscription `id`; false when this connection has none by that id.
    func unsubscribe(_ id: String) -> Bool {
        guard let index = subscriptions.firstIndex(where: { $0.id == id }) else { return false }
        if subscriptions.remove(at: index).isActive {
            fanout.subscriptionsEnded(1)
        }
        leaveSubscriberGroupIfIdle()
        logger.info("unsubscribed", metadata: ["subscription": "\(id)"])
        return true
    }

    /// Starts subscriptions: each receives the current state first, then every later one.
    private func activate(_ ids: [String]) {
        guard !ids.isEmpty, let context else { return }
        if !isInSubscriberGroup {
            fanout.group(for: context.eventLoop).add(self)
            isInSubscriberGroup = true
        }
        // Read after joining the group: any state published from here on reaches this loop after this task.
        let current = fanout.current
        let queueLimit = limits.subscriberQueueLimit
        for id in ids {
            guard let index = subscriptions.firstIndex(where: { $0.id == id }) else { continue }
            subscriptions[index].isActive = true
            subscriptions[index].enqueue(current, limit: queueLimit)
            fanout.subscriptionStarted()
        }
        leaveSubscriberGroupIfIdle()
        drainQueues()
    }

    /// Called by the subscriber group, on this loop, with published states in seq order (some may have been
    /// delivered before, and are ignored); writes what the socket takes, in one flush.
    func deliver(_ states: [EncodedState]) {
        guard context != nil else { return }
        let queueLimit = limits.subscriberQueueLimit
        // Older states than the newest `queueLimit` would only be dropped from a full queue.
        for state in states.suffix(queueLimit) {
            for index in subscriptions.indices where subscriptions[index].isActive {
                subscriptions[index].enqueue(state, limit: queueLimit)
            }
        }
        drainQueues()
    }

    private func leaveSubscriberGroupIfIdle() {
        guard isInSubscriberGroup, let context, !subscriptions.contains(where: \.isActive) else { return }
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
            var index = 0
            while index < subscriptions.count, context.channel.isWritable {
                if let (prefix, state) = subscriptions[index].nextNotification() {
                    context.write(wrapOutboundOut(prefix), promise: nil)
                    context.write(wrapOutboundOut(state), promise: nil)
                    context.write(wrapOutboundOut(StateNotification.suffix), promise: nil)
                    wrote = true
                }
                if index < subscriptions.count, !subscriptions[index].hasQueuedStates {
                    index += 1
                }
            }
            if wrote {
                needsFlush = false
                context.flush()
            }
        } while wrote && self.context != nil && context.channel.isWritable && subscriptions.contains(where: \.hasQueuedStates)
    }

    // MARK: Reading

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        identifyPeer(context: context)
        context.fireChannelActive()
    }

    /// Reads the client's credentials (SO_PEERCRED) and adds its pid and uid to every log line about this connection.
    private func identifyPeer(context: ChannelHandlerContext) {
        guard let peer = PeerCredentials.of(context.channel) else { return }
        self.peer = peer
        logger[metadataKey: "peer_pid"] = "\(peer.pid)"
        logger[metadataKey: "peer_uid"] = "\(peer.uid)"
        logger.debug("connected")
    }

    /// Logs a request that changes state, naming the method and the client.
    func noteMutation(_ method: String, _ detail: String) {
        logger.info("\(method)\(detail.isEmpty ? "" : " ")\(detail) requested", metadata: ["method": "\(method)"])
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leaveAllSubscriptions()
        withdrawPendingAnswers()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        leaveAllSubscriptions()
        withdrawPendingAnswers()
        context.fireChannelInactive()
    }

    /// The connection is gone: answers still coming are not wanted. The mutations behind them still run, for
    /// every subscriber; only the call back to this connection is withdrawn.
    private func withdrawPendingAnswers() {
        let withdrawals = pendingAnswers.values
        pendingAnswers = [:]
        for withdraw in withdrawals {
            withdraw()
        }
    }

    private func leaveAllSubscriptions() {
        let active = subscriptions.filter(\.isActive).count
        subscriptions.removeAll()
        if active > 0 {
            fanout.subscriptionsEnded(active)
        }
        leaveSubscriberGroupIfIdle()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing, !isDiscardingInput else { return }
        switch unwrapInboundIn(data) {
        case .line(let line):
            handle(line: line, context: context)
        case .tooLong(let limit):
            refuseOversizedLine(limit: limit, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded()
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case ChannelEvent.inputClosed:
            isInputClosed = true
            if isDiscardingInput {
                context.close(promise: nil)
            } else {
                closeIfFinished()
            }
        case is ServerShutdownEvent:
            isShuttingDown = true
            closeIfFinished()
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            drainQueues()
            resumeReadingIfAllowed()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if mustHoldReads(context: context) {
            isReadHeld = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)")
        context.close(promise: nil)
    }

    private func mustHoldReads(context: ChannelHandlerContext) -> Bool {
        if isDiscardingInput { return false }
        return isShuttingDown || isClosing || !context.channel.isWritable || pendingRequests >= limits.maxPendingRequests
    }

    private func resumeReadingIfAllowed() {
        guard isReadHeld, let context, !mustHoldReads(context: context) else { return }
        isReadHeld = false
        context.read()
    }

    // MARK: Requests

    private func handle(line: ByteBuffer, context: ChannelHandlerContext) {
        let message: IncomingMessage? = line.withUnsafeReadableBytes { bytes in
            // A line of nothing but whitespace (an empty line, a stray CR) is not a message.
            guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return nil }
            return IncomingMessage.decode(bytes, maxBatchRequests: limits.maxBatchRequests)
        }
        guard let message else { return }

        subscriptionsAwaitingAnswer = []
        let outcome = dispatcher.dispatch(message, context: self)
        let newSubscriptions = subscriptionsAwaitingAnswer
        subscriptionsAwaitingAnswer = []

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
            pendingRequests += 1
            let number = nextAnswerNumber
            nextAnswerNumber += 1
            // The answer comes on whichever thread finished the work; it is written on this loop.
            let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            pendingAnswers[number] = pending.whenReady { answer in
                eventLoop.execute {
                    connection.value.finishPendingRequest(number, answer: answer, newSubscriptions: newSubscriptions)
                }
            }
        }
    }

    private func finishPendingRequest(_ number: Int, answer: EncodedMessage?, newSubscriptions: [String]) {
        // Withdrawn: the connection closed while the answer was on its way here.
        guard pendingAnswers.removeValue(forKey: number) != nil else { return }
        pendingRequests -= 1
        if let answer, context != nil {
            write(answer)
            flushIfNeeded()
        }
        activate(newSubscriptions)
        resumeReadingIfAllowed()
        closeIfFinished()
    }

    private func write(_ answer: EncodedMessage) {
        guard let context else { return }
        for part in answer.finishLine() {
            context.write(wrapOutboundOut(part), promise: nil)
        }
        needsFlush = true
    }

    private func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }

    private func refuseOversizedLine(limit: Int, context: ChannelHandlerContext) {
        logger.warning("closing a connection that sent a line longer than \(limit) bytes")
        let error = RPCError.invalidRequest(
            "the message is longer than \(limit) bytes, the limit set by --max-message-bytes; closing the connection"
        )
        write(RPCResponse(id: .null, outcome: .failure(error)).line)
        // Close our side once the answer is out, but keep reading (the decoder discards everything now) until
        // the client closes: closing with its unread bytes in our buffer would reset the connection and
        // could destroy the answer before the client reads it. A client that never stops sending is cut off.
        isDiscardingInput = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: Self.discardLimit) {
            channel.close(promise: nil)
        }
    }

    /// Closes once nothing is left to answer: after a shutdown request, or when the client closed its side
    /// and holds no subscription that could still receive notifications.
    private func closeIfFinished() {
        guard pendingRequests == 0 else { return }
        if isShuttingDown || (isInputClosed && !subscriptions.contains(where: \.isActive)) {
            closeGracefully()
        }
    }

    /// Flushes what has been written, then closes. A peer that has stopped reading (its socket is not
    /// writable) would hold the flush forever, so it is closed at once: what it has not read is lost either way.
    private func closeGracefully() {
        guard !isClosing, let context else { return }
        isClosing = true
        needsFlush = false
        let channel = context.channel
        guard channel.isWritable else {
            channel.close(promise: nil)
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }
}
