import DepotRPC
import DepotWire

/// The connections open now, in all and by uid, against `maxConnections` and `maxConnectionsPerUser` (read at
/// every accept, so a reload applies to the next connection). Root is exempt from the per-user bound.
final class ConnectionCounter: Sendable {
    /// Everything counted, changed together at each accept and close.
    struct Counts {
        var total = 0
        var byUID: [UInt32: Int] = [:]
        var admitted = 0
        var released = 0
        var lastNumber: UInt64 = 0
    }

    private let books: ServerBooks

    /// Counts kept in `books`.
    init(books: ServerBooks = ServerBooks()) {
        self.books = books
    }

    private func withCounts<Result>(_ body: (inout Counts) -> Result) -> Result {
        books.withValue { body(&$0.connections) }
    }

    /// A number for a new connection, unique for the daemon's life (from 1; 0 is the daemon's own work).
    func nextNumber() -> UInt64 {
        withCounts { counts in
            counts.lastNumber &+= 1
            return counts.lastNumber
        }
    }

    /// Counts a new connection in; when a bound is reached, nothing is counted and the bound and the reason come back.
    func admit(uid: UInt32?, limits: LiveLimits) -> (limit: LimitCounters.Limit, error: RPCError)? {
        let limits = limits.current
        return withCounts { counts in
            if counts.total >= limits.maxConnections {
                return (.maxConnections, .tooManyConnections(holding: counts.total))
            }
            if let uid, uid != 0, counts.byUID[uid, default: 0] >= limits.maxConnectionsPerUser {
                return (.maxConnectionsPerUser, .tooManyConnections(ofUser: uid, holding: counts.byUID[uid, default: 0]))
            }
            counts.total += 1
            if let uid { counts.byUID[uid, default: 0] += 1 }
            counts.admitted += 1
            return nil
        }
    }

    /// Counts a connection that was admitted out.
    func release(uid: UInt32?) {
        withCounts { counts in
            counts.total -= 1
            counts.released += 1
            if let uid {
                counts.byUID[uid, default: 1] -= 1
                if counts.byUID[uid] == 0 { counts.byUID[uid] = nil }
            }
        }
    }

    /// Connections admitted and closed since depotd started.
    var turnover: (opened: Int, closed: Int) {
        withCounts { ($0.admitted, $0.released) }
    }

    /// Connections open now, for stats.
    var total: Int { withCounts { $0.total } }

    /// Connections open now from each uid (those whose uid is known).
    var byUser: [UInt32: Int] { withCounts { $0.byUID } }
}
