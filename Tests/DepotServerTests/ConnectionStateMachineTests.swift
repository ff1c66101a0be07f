import DepotRPC
import DepotTestSupport
import NIOCore
import Testing

@testable import DepotServer

extension ConnectionStateMachine.Activity {
    /// An activity with `pendingAnswers` answers pending (numbered from 0, one request each), `subscriptions`, and
    /// `heldLines` lines held (`line 0`, `line 1`, …).
    init(pendingAnswers: Int = 0, subscriptions: Int = 0, heldLines: Int = 0) {
        var answers: [Int: ConnectionStateMachine.PendingAnswer] = [:]
        for number in 0..<pendingAnswers {
            answers[number] = ConnectionStateMachine.PendingAnswer(count: 1, withdrawal: .none)
        }
        self.init(
            answers: answers, subscriptions: subscriptions,
            lines: CircularBuffer((0..<heldLines).map { ByteBuffer(string: "line \($0)") }))
    }
}

extension ConnectionStateMachine {
    /// The number the next pending answer goes by, after those pending (as the handler numbers them, never reused).
    var nextAnswerNumber: Int {
        (activity?.answers.keys.max() ?? -1) + 1
    }

    /// An answer pending, for `count` requests, numbered after those pending; its number.
    @discardableResult
    mutating func answerPending(count: Int = 1) -> Int {
        let number = nextAnswerNumber
        answerPending(number, count: count, withdrawal: .none)
        return number
    }

    /// The newest pending answer was written.
    mutating func answerWritten() -> CloseAction {
        answerWritten(activity?.answers.keys.max() ?? -1)
    }

    /// A line arrived (its text does not matter to the machine).
    mutating func lineRead(isWritable: Bool, maxPendingAnswers: Int) -> LineAction {
        lineRead(ByteBuffer(string: "line"), isWritable: isWritable, maxPendingAnswers: maxPendingAnswers)
    }
}

/// Every event in every state, against a table written from what each transition must do.
@Suite("ConnectionStateMachine: every event in every state")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    typealias State = Machine.State

    static func open(_ answers: Int, _ subscriptions: Int) -> State { .open(.init(pendingAnswers: answers, subscriptions: subscriptions)) }
    static func draining(_ answers: Int, _ subscriptions: Int) -> State { .draining(.init(pendingAnswers: answers, subscriptions: subscriptions)) }
    static func quiescing(_ answers: Int, _ subscriptions: Int) -> State { .quiescing(.init(pendingAnswers: answers, subscriptions: subscriptions)) }

    /// One state of each kind the machine can be in (a quiescing connection with no answer pending has closed).
    static let states: [State] = [
        open(0, 0), open(1, 0), open(0, 1), open(1, 1),
        draining(1, 0), draining(0, 1), draining(1, 1),
        quiescing(1, 0), quiescing(1, 1),
        .discarding, .closing, .closed,
    ]

    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case lineRead, lineTooLong, answerPending, answerWritten, subscriptionStarted, subscriptionEnded
        case inputClosed, quiesce, quiesceDeadlineReached, discardLimitReached, cutOff, channelClosed

        var testDescription: String { rawValue }

        /// Applies the event; the action, as text.
        func apply(to machine: inout Machine) -> String {
            switch self {
            case .lineRead: "\(machine.lineRead(isWritable: true, maxPendingAnswers: 64))"
            case .lineTooLong: "\(machine.lineTooLong())"
            case .answerPending:
                {
                    machine.answerPending()
                    return "-"
                }()
            case .answerWritten: "\(machine.answerWritten())"
            case .subscriptionStarted: "\(machine.subscriptionsChanged(by: 1))"
            case .subscriptionEnded: "\(machine.subscriptionsChanged(by: -1))"
            case .inputClosed: "\(machine.inputClosed())"
            case .quiesce: "\(machine.quiesce())"
            case .quiesceDeadlineReached: "\(machine.quiesceDeadlineReached())"
            case .discardLimitReached: "\(machine.discardLimitReached())"
            case .cutOff: "\(machine.cutOff())"
            case .channelClosed:
                {
                    machine.channelClosed()
                    return "-"
                }()
            }
        }

        /// Whether the event can happen in `state` (an answer is written only when one is pending, a
        /// subscription ends only when one is active).
        func canHappen(in state: State) -> Bool {
            let activity = Machine(state: state).activity
            switch self {
            case .answerWritten: return activity.map { $0.pendingAnswers > 0 } ?? true
            case .subscriptionEnded: return activity.map { $0.subscriptions > 0 } ?? true
            default: return true
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let from: State
        let event: Event
        let to: State
        let action: String
        var testDescription: String { "\(from) · \(event.rawValue)" }
    }

    /// What each event does, state by state.
    static let table: [Row] = {
        var rows: [Row] = []
        func row(_ from: State, _ event: Event, _ to: State, _ action: String) {
            rows.append(Row(from: from, event: event, to: to, action: action))
        }
        let active = [
            open(0, 0), open(1, 0), open(0, 1), open(1, 1), draining(1, 0), draining(0, 1), draining(1, 1), quiescing(1, 0), quiescing(1, 1),
        ]
        let ended: [State] = [.discarding, .closing, .closed]

        // Lines: dispatched while the connection takes requests (including lines already read when it began to
        // quiesce); an oversized line turns any of those into discarding.
        for state in active {
            row(state, .lineRead, state, "dispatch")
            row(state, .lineTooLong, .discarding, "refuseAndDiscard")
        }
        for state in ended {
            row(state, .lineRead, state, "ignore")
            row(state, .lineTooLong, state, "ignore")
        }

        // Answers.
        row(open(0, 0), .answerPending, open(1, 0), "-")
        row(open(1, 0), .answerPending, open(2, 0), "-")
        row(open(0, 1), .answerPending, open(1, 1), "-")
        row(open(1, 1), .answerPending, open(2, 1), "-")
        row(draining(1, 0), .answerPending, draining(2, 0), "-")
        row(draining(0, 1), .answerPending, draining(1, 1), "-")
        row(draining(1, 1), .answerPending, draining(2, 1), "-")
        row(quiescing(1, 0), .answerPending, quiescing(2, 0), "-")
        row(quiescing(1, 1), .answerPending, quiescing(2, 1), "-")
        row(open(1, 0), .answerWritten, open(0, 0), "none")
        row(open(1, 1), .answerWritten, open(0, 1), "none")
        row(draining(1, 0), .answerWritten, .closing, "close")
        row(draining(1, 1), .answerWritten, draining(0, 1), "none")
        row(quiescing(1, 0), .answerWritten, .closing, "close")
        row(quiescing(1, 1), .answerWritten, .closing, "close")
        for state in ended {
            row(state, .answerPending, state, "-")
            row(state, .answerWritten, state, "none")
        }

        // Subscriptions.
        row(open(0, 0), .subscriptionStarted, open(0, 1), "none")
        row(open(1, 0), .subscriptionStarted, open(1, 1), "none")
        row(open(0, 1), .subscriptionStarted, open(0, 2), "none")
        row(open(1, 1), .subscriptionStarted, open(1, 2), "none")
        row(draining(1, 0), .subscriptionStarted, draining(1, 1), "none")
        row(draining(0, 1), .subscriptionStarted, draining(0, 2), "none")
        row(draining(1, 1), .subscriptionStarted, draining(1, 2), "none")
        row(quiescing(1, 0), .subscriptionStarted, quiescing(1, 1), "none")
        row(quiescing(1, 1), .subscriptionStarted, quiescing(1, 2), "none")
        row(open(0, 1), .subscriptionEnded, open(0, 0), "none")
        row(open(1, 1), .subscriptionEnded, open(1, 0), "none")
        row(draining(0, 1), .subscriptionEnded, .closing, "close")
        row(draining(1, 1), .subscriptionEnded, draining(1, 0), "none")
        row(quiescing(1, 1), .subscriptionEnded, quiescing(1, 0), "none")
        for state in ended {
            row(state, .subscriptionStarted, state, "none")
            row(state, .subscriptionEnded, state, "none")
        }

        // The peer ends its input: an idle connection closes, a busy one drains.
        row(open(0, 0), .inputClosed, .closing, "close")
        row(open(1, 0), .inputClosed, draining(1, 0), "none")
        row(open(0, 1), .inputClosed, draining(0, 1), "none")
        row(open(1, 1), .inputClosed, draining(1, 1), "none")
        for state in [draining(1, 0), draining(0, 1), draining(1, 1), quiescing(1, 0), quiescing(1, 1), State.closing, .closed] {
            row(state, .inputClosed, state, "none")
        }
        row(.discarding, .inputClosed, .closing, "close")

        // The server quiesces: pending answers hold the connection, subscriptions do not.
        row(open(0, 0), .quiesce, .closing, "close")
        row(open(1, 0), .quiesce, quiescing(1, 0), "none")
        row(open(0, 1), .quiesce, .closing, "close")
        row(open(1, 1), .quiesce, quiescing(1, 1), "none")
        row(draining(1, 0), .quiesce, quiescing(1, 0), "none")
        row(draining(0, 1), .quiesce, .closing, "close")
        row(draining(1, 1), .quiesce, quiescing(1, 1), "none")
        for state in [quiescing(1, 0), quiescing(1, 1), State.closing, .closed] {
            row(state, .quiesce, state, "none")
        }
        row(.discarding, .quiesce, .closing, "close")

        // Deadlines: the shutdown's closes a quiescing connection and one stuck flushing its last bytes; the
        // discard limit closes a discarding one. Neither touches anything else.
        for state in [open(0, 0), open(1, 0), open(0, 1), open(1, 1), draining(1, 0), draining(0, 1), draining(1, 1), State.discarding, .closed] {
            row(state, .quiesceDeadlineReached, state, "none")
        }
        row(quiescing(1, 0), .quiesceDeadlineReached, .closing, "close")
        row(quiescing(1, 1), .quiesceDeadlineReached, .closing, "close")
        row(.closing, .quiesceDeadlineReached, .closing, "close")
        for state in active + [State.closing, .closed] {
            row(state, .discardLimitReached, state, "none")
        }
        row(.discarding, .discardLimitReached, .closing, "close")

        // Over a memory bound, any connection still open closes.
        for state in active + [State.discarding] {
            row(state, .cutOff, .closing, "close")
        }
        row(.closing, .cutOff, .closing, "none")
        row(.closed, .cutOff, .closed, "none")

        // However it happens, a closed channel is closed.
        for state in active + ended {
            row(state, .channelClosed, .closed, "-")
        }
        return rows
    }()

    @Test("the table covers every event that can happen in every state, once")
    func tableIsComplete() {
        for state in Self.states {
            for event in Event.allCases where event.canHappen(in: state) {
                let rows = Self.table.filter { $0.from == state && $0.event == event }
                #expect(rows.count == 1, "\(state) · \(event.rawValue): \(rows.count) rows")
            }
        }
    }

    @Test("each transition", arguments: table)
    func transition(row: Row) {
        var machine = Machine(state: row.from)
        let action = row.event.apply(to: &machine)
        #expect(machine.state == row.to)
        #expect(action == row.action)
    }

    @Test("phase names what the connection is doing")
    func phases() {
        #expect(Machine(state: Self.open(0, 0)).phase == .reading)
        #expect(Machine(state: Self.open(2, 0)).phase == .answering)
        #expect(Machine(state: Self.open(2, 3)).phase == .answering)
        #expect(Machine(state: Self.open(0, 3)).phase == .subscribed)
        #expect(Machine(state: Self.draining(0, 1)).phase == .draining)
        #expect(Machine(state: Self.quiescing(1, 0)).phase == .quiescing)
        #expect(Machine(state: .discarding).phase == .discarding)
        #expect(Machine(state: .closing).phase == .closing)
        #expect(Machine(state: .closed).phase == .closed)
        #expect(Machine().phase == .reading, "a new connection reads")
    }

    @Test("notifications are delivered while the connection has an activity, and never after")
    func notifications() {
        for state in Self.states {
            let expected: Bool =
                switch state {
                case .open, .draining, .quiescing: true
                case .discarding, .closing, .closed: false
                }
            #expect(Machine(state: state).deliversNotifications == expected, "\(state)")
        }
    }

    @Test("reads: held while the socket is full or too many answers pending, resumed when both clear")
    func readsAreHeldAndResumed() {
        var machine = Machine()
        var steps: [Bool] = []
        steps.append(machine.readRequested(isWritable: true, maxPendingAnswers: 2))
        steps.append(machine.isReadHeld)
        steps.append(machine.readRequested(isWritable: false, maxPendingAnswers: 2))  // the socket cannot take more output
        steps.append(machine.isReadHeld)
        steps.append(machine.mayResumeReading(isWritable: false, maxPendingAnswers: 2))
        steps.append(machine.mayResumeReading(isWritable: true, maxPendingAnswers: 2))
        steps.append(machine.isReadHeld)
        steps.append(machine.mayResumeReading(isWritable: true, maxPendingAnswers: 2))  // nothing held, nothing to resume
        #expect(steps == [true, false, false, true, false, true, false, false])

        machine.answerPending()
        machine.answerPending()
        var atLimit: [Bool] = []
        atLimit.append(machine.readRequested(isWritable: true, maxPendingAnswers: 2))  // two pending, the most allowed
        atLimit.append(machine.mayResumeReading(isWritable: true, maxPendingAnswers: 2))
        _ = machine.answerWritten()
        atLimit.append(machine.mayResumeReading(isWritable: true, maxPendingAnswers: 2))
        #expect(atLimit == [false, false, true])

        // A batch's calls each count: one line of 100 pending calls holds reading until it is answered.
        var batch = Machine()
        batch.answerPending(count: 100)
        let held = batch.readRequested(isWritable: true, maxPendingAnswers: 64)
        let stillHeld = batch.mayResumeReading(isWritable: true, maxPendingAnswers: 64)
        _ = batch.answerWritten()
        let resumed = batch.mayResumeReading(isWritable: true, maxPendingAnswers: 64)
        #expect([held, stillHeld, resumed] == [false, false, true])
    }

    @Test("lines: held while the socket is full or too many answers wait, in order after those held before; released when both clear")
    func linesAreHeldAndReleased() {
        var machine = Machine()
        var actions: [Machine.LineAction] = []
        actions.append(machine.lineRead(ByteBuffer(string: "first"), isWritable: true, maxPendingAnswers: 2))
        actions.append(machine.lineRead(ByteBuffer(string: "second"), isWritable: false, maxPendingAnswers: 2))
        // One is held: this one waits behind it.
        actions.append(machine.lineRead(ByteBuffer(string: "third"), isWritable: true, maxPendingAnswers: 2))
        #expect(actions == [.dispatch, .hold, .hold])
        #expect(machine.activity?.heldLines == 2)
        #expect(machine.phase == .answering)
        let readsWhileHeld = machine.readRequested(isWritable: true, maxPendingAnswers: 2)
        #expect(!readsWhileHeld, "no more input while lines are held")
        var steps: [String?] = []
        func next(isWritable: Bool) {
            steps.append(machine.nextHeldLine(isWritable: isWritable, maxPendingAnswers: 2).map { String(buffer: $0) })
        }
        next(isWritable: false)
        next(isWritable: true)
        machine.answerPending()
        machine.answerPending()
        next(isWritable: true)  // two answers wait, the most allowed
        let another = machine.lineRead(ByteBuffer(string: "fourth"), isWritable: true, maxPendingAnswers: 2)
        #expect(another == .hold)
        _ = machine.answerWritten()
        next(isWritable: true)
        _ = machine.answerWritten()
        next(isWritable: true)
        next(isWritable: true)  // nothing left
        #expect(steps == [nil, "second", nil, "third", "fourth", nil], "held lines come out oldest first, each once")
        #expect(machine.activity == .init(pendingAnswers: 0, subscriptions: 0, heldLines: 0))
        let resumes = machine.mayResumeReading(isWritable: true, maxPendingAnswers: 2)
        #expect(resumes)
    }

    @Test("held lines keep a draining or quiescing connection open until they are dispatched and answered")
    func heldLinesHoldTheEnd() {
        var draining = Machine(state: .open(.init(heldLines: 1)))
        var closes: [Machine.CloseAction] = []
        closes.append(draining.inputClosed())
        #expect(draining.state == .draining(.init(heldLines: 1)))
        closes.append(draining.heldLinesDispatched())
        let released = draining.nextHeldLine(isWritable: true, maxPendingAnswers: 1) != nil
        closes.append(draining.heldLinesDispatched())  // answered at once: nothing is left
        #expect(released)
        #expect(closes == [.none, .none, .close])

        var quiescing = Machine(state: .open(.init(subscriptions: 1, heldLines: 2)))
        closes = [quiescing.quiesce()]
        let lateLine = quiescing.lineRead(isWritable: true, maxPendingAnswers: 1)
        #expect(lateLine == .hold, "a line already read still counts")
        var steps = [quiescing.nextHeldLine(isWritable: true, maxPendingAnswers: 1) != nil]
        quiescing.answerPending()
        closes.append(quiescing.answerWritten())  // two lines are still held
        steps.append(quiescing.nextHeldLine(isWritable: true, maxPendingAnswers: 1) != nil)
        steps.append(quiescing.nextHeldLine(isWritable: true, maxPendingAnswers: 1) != nil)
        closes.append(quiescing.heldLinesDispatched())
        #expect(steps == [true, true, true])
        #expect(closes == [.none, .none, .close])

        var ended = Machine(state: .discarding)
        let ignored = ended.lineRead(isWritable: false, maxPendingAnswers: 0)
        let none = ended.nextHeldLine(isWritable: true, maxPendingAnswers: 1) == nil
        #expect(ignored == .ignore && none)
    }

    @Test("reads by state: held for good once requests are no longer taken; a discarding connection reads to drop")
    func readsByState() {
        let expectations: [(State, Bool)] = [
            (Self.open(0, 1), true), (Self.draining(1, 1), true), (Self.quiescing(1, 0), false),
            (.discarding, true), (.closing, false), (.closed, false),
        ]
        for (state, reads) in expectations {
            var machine = Machine(state: state)
            let read = machine.readRequested(isWritable: true, maxPendingAnswers: 64)
            #expect(read == reads, "\(state)")
        }
        var discarding = Machine(state: .discarding)
        let dropping = discarding.readRequested(isWritable: false, maxPendingAnswers: 0)
        #expect(dropping, "dropping input needs no room for output")
        var closed = Machine(state: Self.open(0, 0))
        _ = closed.readRequested(isWritable: false, maxPendingAnswers: 64)
        closed.channelClosed()
        #expect(!closed.isReadHeld, "a closed connection holds nothing")
    }

    @Test("what an activity held is released once when it ends: held lines in order, every answer's withdrawal")
    func releasedWhenTheActivityEnds() {
        let ends: [(String, (inout Machine) -> Void)] = [
            ("cut off", { _ = $0.cutOff() }),
            ("an oversized line", { _ = $0.lineTooLong() }),
            ("the channel closed", { $0.channelClosed() }),
            (
                "the shutdown deadline",
                {
                    _ = $0.quiesce()
                    _ = $0.quiesceDeadlineReached()
                }
            ),
        ]
        for (name, end) in ends {
            var machine = Machine()
            let withdrawn = Condition(0)
            let withdrawal = Withdrawal { withdrawn.update { $0 += 1 } }
            machine.answerPending(7, count: 2, withdrawal: withdrawal)
            machine.answerPending(8, withdrawal: withdrawal)
            _ = machine.lineRead(ByteBuffer(string: "a"), isWritable: false, maxPendingAnswers: 64)
            _ = machine.lineRead(ByteBuffer(string: "b"), isWritable: true, maxPendingAnswers: 64)
            #expect(machine.takeReleased().lines.isEmpty, "\(name): nothing is released while the activity goes on")
            end(&machine)
            #expect(!machine.isAwaiting(answer: 7) && !machine.isAwaiting(answer: 8), "\(name): an answer arriving now is not written")
            #expect(machine.answerWritten(7) == .none)
            let released = machine.takeReleased()
            #expect(released.lines.map { String(buffer: $0) } == ["a", "b"], "\(name)")
            for withdraw in released.withdrawals { withdraw() }
            #expect(withdrawn.value == 2, "\(name): each pending answer withdrawn")
            #expect(machine.takeReleased().lines.isEmpty && machine.takeReleased().withdrawals.isEmpty, "\(name): released once")
        }

        // An answer that becomes pending after the end (a dispatch that cut its own connection off) is withdrawn too.
        var late = Machine()
        _ = late.cutOff()
        late.answerPending(1, withdrawal: .none)
        #expect(late.takeReleased().withdrawals.count == 1)
        #expect(!late.isAwaiting(answer: 1))
    }

    @Test("answers are matched by number: a batch's counts all go with its answer; an unknown number changes nothing")
    func answersByNumber() {
        var machine = Machine()
        machine.answerPending(3, count: 5, withdrawal: .none)
        machine.answerPending(4, withdrawal: .none)
        #expect(machine.activity?.pendingAnswers == 6)
        #expect(machine.isAwaiting(answer: 3) && !machine.isAwaiting(answer: 5))
        #expect(machine.answerWritten(5) == .none)
        #expect(machine.activity?.pendingAnswers == 6, "an answer not pending is not counted off")
        _ = machine.answerWritten(3)
        #expect(machine.activity?.pendingAnswers == 1)
        #expect(!machine.isAwaiting(answer: 3))
        _ = machine.answerWritten(3)
        #expect(machine.activity?.pendingAnswers == 1, "an answer counts off once")
    }

    @Test("re-entrant passes: held lines are dispatched, and notifications delivered, by one pass at a time")
    func reentrantPasses() {
        var machine = Machine()
        var steps: [Bool] = [machine.startDispatchingHeldLines()]  // nothing held: no pass
        _ = machine.lineRead(ByteBuffer(string: "held"), isWritable: false, maxPendingAnswers: 64)
        steps.append(machine.startDispatchingHeldLines())
        steps.append(machine.startDispatchingHeldLines())  // from inside the pass: it goes on instead
        let line = machine.nextHeldLine(isWritable: true, maxPendingAnswers: 64)
        _ = machine.lineRead(ByteBuffer(string: "later"), isWritable: false, maxPendingAnswers: 64)
        _ = machine.heldLinesDispatched()
        steps.append(machine.startDispatchingHeldLines())  // the pass ended: a new one may start
        #expect(steps == [false, true, false, true])
        #expect(line.map { String(buffer: $0) } == "held")
    }
}
