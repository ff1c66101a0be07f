import DepotRPC
import NIOCore

/// The lifecycle of one connection, as a value: what it is doing, what it holds, and what its handler must do next.
///
/// It knows nothing of channels or time. It owns the lines held back and the answers still coming (each stored here
/// only), and every event returns the action to take (read or hold, dispatch or ignore, close or wait), so every
/// transition is unit-tested on its own, and the handler only carries actions out.
///
///     open ──peer ends its input──▶ draining ──idle──▶ closing ──▶ closed
///       │                              │                  ▲
///       ├──server quiesces──▶ quiescing ──answers written─┤ (or its deadline)
///       ├──line too long───▶ discarding ──peer ends, or its limit─┤
///       └──over a memory bound (from any state)───────────────────┘
///
/// `open` covers reading, answering (answers pending) and subscribed (subscriptions receiving states); see `phase`.
struct ConnectionStateMachine: Equatable {
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
    /// What the activity held when it ended, until the handler takes it.
    private var released = Released()

    /// Equal in state and in what reading and the re-entrant passes wait for (what was released is not compared).
    static func == (lhs: ConnectionStateMachine, rhs: ConnectionStateMachine) -> Bool {
        lhs.state == rhs.state && lhs.isReadHeld == rhs.isReadHeld
    }

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
    mutating func lineRead(_ line: ByteBuffer, isWritable: Bool, maxPendingAnswers: Int) -> LineAction {
        guard let activity else { return .ignore }
        if activity.heldLines == 0, Self.mayDispatch(activity, isWritable: isWritable, maxPendingAnswers: maxPendingAnswers) {
            return .dispatch
        }
        updateActivity { $0.hold(line) }
        return .hold
    }

    /// Before dispatching held lines: false when none are held, or a dispatch is under way (this call came from
    /// inside it), and the caller does nothing. Otherwise the caller takes lines with `nextHeldLine`, then calls
    /// `heldLinesDispatched`.
    mutating func startDispatchingHeldLines() -> Bool {
        guard let activity, !activity.isDispatchingHeldLines, activity.heldLines > 0 else { return false }
        updateActivity { $0.isDispatchingHeldLines = true }
        return true
    }

    /// The oldest held line, to dispatch now (it is no longer held), while the socket takes output and fewer than
    /// `maxPendingAnswers` answers wait; nil otherwise.
    mutating func nextHeldLine(isWritable: Bool, maxPendingAnswers: Int) -> ByteBuffer? {
        guard let activity, activity.heldLines > 0, Self.mayDispatch(activity, isWritable: isWritable, maxPendingAnswers: maxPendingAnswers)
        else { return nil }
        var line: ByteBuffer?
        updateActivity { line = $0.nextLine() }
        return line
    }

    /// Held lines were dispatched: a draining or quiescing connection with nothing left to answer closes.
    mutating func heldLinesDispatched() -> CloseAction {
        updateActivity { $0.isDispatchingHeldLines = false }
        return closeIfFinished()
    }

    // MARK: Answers and subscriptions

    /// A dispatched message will be answered later, as answer `number`; it counts as `count` requests waiting (a
    /// batch's pending calls each count), so one line cannot queue more work than the bound allows. `withdrawal`
    /// stops its callback once the connection is gone. A connection that no longer takes requests withdraws it at once.
    mutating func answerPending(_ number: Int, count: Int = 1, withdrawal: Withdrawal) {
        guard activity != nil else {
            released.withdrawals.append(withdrawal)
            return
        }
        updateActivity { $0.add(answer: number, PendingAnswer(count: count, withdrawal: withdrawal)) }
    }

    /// Whether answer `number` is still wanted: pending, and not withdrawn as the connection stopped taking requests.
    func isAwaiting(answer number: Int) -> Bool {
        activity?.answers[number] != nil
    }

    /// Answer `number` was written (or had nothing to write). A quiescing connection closes with its last answer; a
    /// draining one once nothing holds it.
    mutating func answerWritten(_ number: Int) -> CloseAction {
        var found = false
        updateActivity { found = $0.removeAnswer(number) != nil }
        return found ? closeIfFinished() : .none
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
            end(in: .closing)
            return .close
        case .open, .draining, .discarding, .closed:
            return .none
        }
    }

    /// A line longer than the limit arrived.
    mutating func lineTooLong() -> OversizedLineAction {
        guard activity != nil else { return .ignore }
        end(in: .discarding)
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
        end(in: .closed)
        isReadHeld = false
    }

    /// What the activity held when it ended (see `Released`); the machine keeps nothing of it.
    mutating func takeReleased() -> Released {
        defer { released = Released() }
        return released
    }

    // MARK: Internals

    /// Changes the activity in place. The state lets go of it while it changes (`.closed` for that instant, as
    /// postgres-nio's machines use a `modifying` state): otherwise the held lines and answers, still referenced by
    /// the state, would be copied whole on every change — a line held among thousands would cost them all.
    private mutating func updateActivity(_ change: (inout Activity) -> Void) {
        func changed(_ activity: inout Activity) {
            change(&activity)
            assert(activity.pendingAnswers >= 0 && activity.subscriptions >= 0, "more answers or subscriptions ended than began")
        }
        switch state {
        case .open(var activity):
            state = .closed
            changed(&activity)
            state = .open(activity)
        case .draining(var activity):
            state = .closed
            changed(&activity)
            state = .draining(activity)
        case .quiescing(var activity):
            state = .closed
            changed(&activity)
            state = .quiescing(activity)
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
        end(in: .closing)
        return .close
    }

    /// Moves to a state without an activity; what the activity held waits for `takeReleased`.
    private mutating func end(in newState: State) {
        if let activity {
            let held = activity.released()
            released.lines += held.lines
            released.withdrawals += held.withdrawals
        }
        state = newState
    }
}
