import DepotRPC
import NIOCore

/// What a connection that takes requests holds, apart from reading them: its pending answers, its subscriptions and
/// its held lines — each stored here only, owned by `ConnectionStateMachine`'s state.
extension ConnectionStateMachine {
    /// An answer that comes later: how many requests it stands for (a batch's pending calls each count), and how to
    /// stop it from calling back once the connection is gone.
    struct PendingAnswer {
        let count: Int
        let withdrawal: Withdrawal
    }

    /// What is still going on, apart from reading requests.
    struct Activity: Equatable {
        /// Requests dispatched whose answers are not written yet, by the number the handler gave each.
        private(set) var answers: [Int: PendingAnswer]
        /// The requests those answers stand for.
        private(set) var pendingAnswers: Int
        /// Subscriptions receiving notifications.
        var subscriptions: Int
        /// Lines read but not dispatched yet, oldest first: they came while the socket was full or too many answers
        /// were pending.
        private(set) var lines: CircularBuffer<ByteBuffer>
        /// True while the handler dispatches held lines: a dispatch can flush, and a flush can report the socket
        /// writable again at once; the dispatch under way goes on instead of a second one starting inside it.
        var isDispatchingHeldLines = false

        init(answers: [Int: PendingAnswer] = [:], subscriptions: Int = 0, lines: CircularBuffer<ByteBuffer> = []) {
            self.answers = answers
            self.pendingAnswers = answers.values.reduce(0) { $0 + $1.count }
            self.subscriptions = subscriptions
            self.lines = lines
        }

        var heldLines: Int { lines.count }

        var isIdle: Bool { pendingAnswers == 0 && subscriptions == 0 && lines.isEmpty }

        /// Whether every request read has been answered (subscriptions aside).
        var isAnswered: Bool { pendingAnswers == 0 && lines.isEmpty }

        /// Equal when they hold the same lines, subscriptions and answers (by number and count; a withdrawal is a
        /// closure, not compared), and are dispatching held lines or not alike.
        static func == (lhs: Activity, rhs: Activity) -> Bool {
            lhs.subscriptions == rhs.subscriptions && lhs.lines == rhs.lines && lhs.isDispatchingHeldLines == rhs.isDispatchingHeldLines
                && lhs.answers.mapValues(\.count) == rhs.answers.mapValues(\.count)
        }

        mutating func add(answer number: Int, _ answer: PendingAnswer) {
            assert(answers[number] == nil, "answer \(number) is pending already")
            answers[number] = answer
            pendingAnswers += answer.count
        }

        mutating func removeAnswer(_ number: Int) -> PendingAnswer? {
            guard let answer = answers.removeValue(forKey: number) else { return nil }
            pendingAnswers -= answer.count
            return answer
        }

        mutating func hold(_ line: ByteBuffer) { lines.append(line) }

        mutating func nextLine() -> ByteBuffer { lines.removeFirst() }

        /// Everything held, for the handler to let go: the activity is over.
        func released() -> Released {
            Released(lines: Array(lines), withdrawals: answers.values.map(\.withdrawal))
        }
    }

    /// What an activity held when the connection stopped taking requests: the lines never dispatched (their bytes
    /// leave the memory books) and the answers no longer wanted (the handler withdraws them when it takes these).
    struct Released {
        var lines: [ByteBuffer] = []
        var withdrawals: [Withdrawal] = []
    }
}
