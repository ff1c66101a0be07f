/// How often each limit was reached since depotd started, for `stats`: a refusal, a connection cut off, a line
/// held back, a state a subscriber skipped.
final class LimitCounters: Sendable {
    /// Each limit, by its setting's name (the config file's key).
    enum Limit: String, CaseIterable, Sendable {
        /// A connection refused: too many in all, or from its uid.
        case maxConnections, maxConnectionsPerUser
        /// A subscribe refused: the connection holds the most subscriptions; or the most distinct pipelines run.
        case maxSubscriptions, maxPipelines
        /// A batch refused whole; an answer of a batch left out.
        case maxBatchRequests, maxBatchAnswerBytes
        /// A line over the size limit (its connection closed); a line left unfinished too long (closed).
        case maxMessageBytes, partialLineTimeout
        /// A line held back because the connection has the most requests waiting for a mutation.
        case maxPendingRequests
        /// A connection cut off: unread answers, its user's memory, unfinished lines of all users.
        case maxUnreadAnswerBytes, maxMemoryPerUser, maxUnfinishedLineBytes
        /// States a subscriber skipped because its queue was full (states, not notifications).
        case subscriberQueue
    }

    private let books: ServerBooks

    /// Counts kept in `books`.
    init(books: ServerBooks = ServerBooks()) {
        self.books = books
    }

    private func withCounts<Result>(_ body: (inout [Int]) -> Result) -> Result {
        books.withValue { body(&$0.limitsHit) }
    }

    func hit(_ limit: Limit, times: Int = 1) {
        withCounts { $0[Self.index(of: limit)] += times }
    }

    func count(_ limit: Limit) -> Int {
        withCounts { $0[Self.index(of: limit)] }
    }

    /// Every limit with its count, in declaration order.
    var all: [(Limit, Int)] {
        let counts = withCounts { $0 }
        return zip(Limit.allCases, counts).map { ($0, $1) }
    }

    private static func index(of limit: Limit) -> Int {
        // Cannot fail: every case is in allCases.
        // swift-format-ignore: NeverForceUnwrap
        Limit.allCases.firstIndex(of: limit)!
    }
}
