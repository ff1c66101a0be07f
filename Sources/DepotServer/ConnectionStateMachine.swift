/// The lifecycle of one connection, as a value: what it is doing, and what its handler must do next.
///
/// It knows nothing of NIO or time. Every event returns the action to take (read or hold, dispatch or ignore,
/// close or wait), so every transition is unit-tested on its own, and the handler only carries actions out.
///
///     open ──peer ends its input──▶ draining ──idle──▶ closing ──▶ closed
///       │                              │                  ▲
///       ├──server quiesces──▶ quiescing ──answers written─┤ (or its deadline)
///       ├──line too long───▶ discarding ──peer ends, or its limit─┤
///       └──over a memory bound (from any state)───────────────────┘
///
/// `open` covers reading, answering (answers pending) and subscribed (subscriptions receiving states); see `phase`.
struct ConnectionStateMachine: Equatable {
    /// What is still going on, apart from reading requests.
    struct Activity: Equatable {
        /// Requests dispatched whose answers are not written yet.
        var pendingAnswers = 0
        /// Subscriptions receiving notifications.
        var subscriptions = 0
        /// Lines read but not dispatched yet: they came while the socket was full or too many answers were pending.
        var heldLines = 0

        init(pendingAnswers: Int = 0, subscriptions: Int = 0, heldLines: Int = 0) {
            self.pendingAnswers = pendingAnswers
            self.subscriptions = subscriptions
            self.heldLines = heldLines
        }

        var isIdle: Bool { pendingAnswers == 0 && subscriptions == 0 && heldLines == 0 }

        /// Whether every request read has been answered (subscriptions aside).
        var isAnswered: Bool { pendingAnswers == 0 && heldLines == 0 }
    }

    enum State: Equatable {
        /// Reads requests, answers them, delivers notifications.
        case open(Activity)
        /// The peer ended its input: no request will come. Stays while answers are pending or subscriptions may
        /// still receive states (a script that subscribed, then closed its side, keeps receiving).
        case draining(Activity)
        /// The server is shutting down: no more requests are read; closes once the pending answers are written.
        /// Subscriptions do not hold it open.
        case quiescing(Activity)
        /// A line over the size limit was answered with an error and the output closed: input is read and dropped
        /// until the peer closes, or the discard limit passes.
        case discarding
        /// The last bytes are being flushed before the socket closes.
        case closing
        case closed
    }

    /// The name of what the connection is doing, for logs and tests.
    enum Phase: String, Equatable {
        case reading, answering, subscribed, draining, quiescing, discarding, closing, closed
    }

    /// What the handler does with a line it read.
    enum LineAction: Equatable {
        case dispatch
        /// Keep it, after any kept before, until `nextHeldLine` says to dispatch it: the client is not reading its
        /// answers (the socket is full) or has the most requests waiting that it may.
        case hold
        /// The connection no longer takes requests: drop the line.
        case ignore
    }

    /// Whether to close after an event.
    enum CloseAction: Equatable {
        case none
        /// Flush what was written, then close.
        case close
    }

    /// What to do with a line over the size limit.
    enum OversizedLineAction: Equatable {
        /// Answer with an error, close the output, keep reading (and dropping) until the peer closes; close at
        /// the discard limit at the latest.
        case refuseAndDiscard
        case ignore
    }

    private(set) var state: State
    /// True while a read NIO asked for is held back, until `mayResumeReading` lets it go.
    private(set) var isReadHeld = false

    /// A new connection: open, with nothing pending. (Tests start from any state.)
    init(state: State = .open(Activity())) {
        self.state = state
    }

    var phase: Phase {
        switch state {
        case .open(let activity):
            if activity.pendingAnswers > 0 || activity.heldLines > 0 { return .answering }
            return activity.subscriptions > 0 ? .subscribed : .reading
        case .draining: return .draining
        case .quiescing: return .quiescing
        case .discarding: return .discarding
        case .closing: return .closing
        case .closed: return .closed
        }
    }

    /// The activity of a connection that still has one.
    var activity: Activity? {
        switch state {
        case .open(let activity), .draining(let activity), .quiescing(let activity): activity
        case .discarding, .closing, .closed: nil
        }
    }

    /// Whether states should still be queued and written for subscribers.
    var deliversNotifications: Bool { activity != nil }

    // MARK: Reading

    /// NIO asks to read. Held while the socket cannot take more output, too many answers are pending or lines are
    /// held, so a client that does not read its answers cannot make the daemon buffer without bound; held for good
    /// once the connection stops taking requests. A discarding connection keeps reading to drop what comes.
    mutating func readRequested(isWritable: Bool, maxPendingAnswers: Int) -> Bool {
        let mayRead = mayRead(isWritable: isWritable, maxPendingAnswers: maxPendingAnswers)
        isReadHeld = !mayRead
        return mayRead
    }

    /// After the socket became writable or an answer was written: true when a held read may go ahead now.
    mutating func mayResumeReading(isWritable: Bool, maxPendingAnswers: Int) -> Bool {
        guard isReadHeld, mayRead(isWritable: isWritable, maxPendingAnswers: maxPendingAnswers) else { return false }
        isReadHeld = false
        return true
    }

    private func mayRead(isWritable: Bool, maxPendingAnswers: Int) -> Bool {
        switch state {
        case .open(let activity), .draining(let activity):
            activity.heldLines == 0 && Self.mayDispatch(activity, isWritable: isWritable, maxPendingAnswers: maxPendingAnswers)
        case .discarding:
            true
        case .quiescing, .closing, .closed:
            false
        }
    }

    private static func mayDispatch(_ activity: Activity, isWritable: Bool, maxPendingAnswers: Int) -> Bool {
        isWritable && activity.pendingAnswers < maxPendingAnswers
    }

    /// A line arrived. It is dispatched while the socket takes output and fewer than `maxPendingAnswers` answers
    /// wait, after the lines held before it; otherwise held (lines already read in one go arrive even when reading
    /// is held, so holding them is what bounds the work one connection can queue). Lines already read when the
    /// server began to quiesce are still answered; a discarding or closing connection takes none.
    mutating func lineRead(isWritable: Bool, maxPendingAnswers: Int) -> LineAction {
        guard let activity else { return .ignore }
        if activity.heldLines == 0, Self.mayDispatch(activity, isWritable: isWritable, maxPendingAnswers: maxPendingAnswers) {
            return .dispatch
        }
        updateActivity { $0.heldLines += 1 }
        return .hold
    }

    /// After the socket became writable or an answer was written: true when the oldest held line is to be
    /// dispatched now (it no longer counts as held).
    mutating func nextHeldLine(isWritable: Bool, maxPendingAnswers: Int) -> Bool {
        guard let activity, activity.heldLines > 0, Self.mayDispatch(activity, isWritable: isWritable, maxPendingAnswers: maxPendingAnswers)
        else { return false }
        updateActivity { $0.heldLines -= 1 }
        return true
    }

    /// Held lines were dispatched: a draining or quiescing connection with nothing left to answer closes.
    mutating func heldLinesDispatched() -> CloseAction {
        closeIfFinished()
    }

    // MARK: Answers and subscriptions

    /// A dispatched message will be answered later; it counts as `count` requests waiting (a batch's pending calls
    /// each count), so one line cannot queue more work than the bound allows.
    mutating func answerPending(count: Int = 1) {
        updateActivity { $0.pendingAnswers += count }
    }

    /// A pending answer was written (or had nothing to write), for `count` requests. A quiescing connection closes
    /// with its last answer; a draining one once nothing holds it.
    mutating func answerWritten(count: Int = 1) -> CloseAction {
        updateActivity { $0.pendingAnswers -= count }
        return closeIfFinished()
    }

    /// Subscriptions began (`count` > 0) or ended (`count` < 0) receiving states.
    mutating func subscriptionsChanged(by count: Int) -> CloseAction {
        updateActivity { $0.subscriptions += count }
        return closeIfFinished()
    }

    // MARK: Ending

    /// The peer ended its input (a half-close, or EOF).
    mutating func inputClosed() -> CloseAction {
        switch state {
        case .open(let activity):
            state = .draining(activity)
            return closeIfFinished()
        case .discarding:
            return startClosing()
        case .draining, .quiescing, .closing, .closed:
            return .none
        }
    }

    /// The server is shutting down (NIO's `ChannelShouldQuiesceEvent`): stop taking requests, write the answers
    /// still pending, then close. The handler also arms the shutdown deadline (`quiesceDeadlineReached`).
    mutating func quiesce() -> CloseAction {
        switch state {
        case .open(let activity), .draining(let activity):
            state = .quiescing(activity)
            return closeIfFinished()
        case .discarding:
            return startClosing()
        case .quiescing, .closing, .closed:
            return .none
        }
    }

    /// The shutdown deadline passed: whatever is left unanswered, the connection closes.
    mutating func quiesceDeadlineReached() -> CloseAction {
        switch state {
        case .quiescing, .closing:
            // A closing connection whose peer does not read would hold its last flush forever.
            state = .closing
            return .close
        case .open, .draining, .discarding, .closed:
            return .none
        }
    }

    /// A line longer than the limit arrived.
    mutating func lineTooLong() -> OversizedLineAction {
        guard activity != nil else { return .ignore }
        state = .discarding
        return .refuseAndDiscard
    }

    /// The time a discarding connection may keep sending has passed.
    mutating func discardLimitReached() -> CloseAction {
        guard state == .discarding else { return .none }
        return startClosing()
    }

    /// The connection is cut off: it holds more of depotd's memory than it may. Nothing more is dispatched or
    /// delivered; what was written is flushed if the socket takes it, and the connection closes.
    mutating func cutOff() -> CloseAction {
        switch state {
        case .open, .draining, .quiescing, .discarding:
            return startClosing()
        case .closing, .closed:
            return .none
        }
    }

    /// The channel is closed, whoever closed it.
    mutating func channelClosed() {
        state = .closed
        isReadHeld = false
    }

    // MARK: Internals

    private mutating func updateActivity(_ change: (inout Activity) -> Void) {
        func changed(_ activity: Activity) -> Activity {
            var activity = activity
            change(&activity)
            assert(
                activity.pendingAnswers >= 0 && activity.subscriptions >= 0 && activity.heldLines >= 0,
                "more answers, subscriptions or held lines ended than began")
            return activity
        }
        switch state {
        case .open(let activity): state = .open(changed(activity))
        case .draining(let activity): state = .draining(changed(activity))
        case .quiescing(let activity): state = .quiescing(changed(activity))
        case .discarding, .closing, .closed: break
        }
    }

    private mutating func closeIfFinished() -> CloseAction {
        switch state {
        case .draining(let activity) where activity.isIdle:
            return startClosing()
        case .quiescing(let activity) where activity.isAnswered:
            return startClosing()
        default:
            return .none
        }
    }

    private mutating func startClosing() -> CloseAction {
        state = .closing
        return .close
    }
}
