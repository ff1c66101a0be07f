import DepotPlatform
import DepotRPC
import DepotWire
import Synchronization

/// The connections open now, in all and by uid, against `maxConnections` and `maxConnectionsPerUser` (read at
/// every accept, so a reload applies to the next connection). Root is exempt from the per-user bound.
final class ConnectionCounter: Sendable {
    private let counts = Locked<(total: Int, byUID: [UInt32: Int])>((0, [:]))
    private let numbers = Atomic<UInt64>(0)
    private let admittedTotal = Atomic<Int>(0)
    private let releasedTotal = Atomic<Int>(0)

    /// A number for a new connection, unique for the daemon's life (from 1; 0 is the daemon's own work).
    func nextNumber() -> UInt64 {
        numbers.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Counts a new connection in; when a bound is reached, nothing is counted and the bound and the reason come back.
    func admit(uid: UInt32?, limits: LiveLimits) -> (limit: LimitCounters.Limit, error: RPCError)? {
        let limits = limits.current
        return counts.withLock { counts in
            if counts.total >= limits.maxConnections {
                return (.maxConnections, .tooManyConnections(holding: counts.total))
            }
            if let uid, uid != 0, counts.byUID[uid, default: 0] >= limits.maxConnectionsPerUser {
                return (.maxConnectionsPerUser, .tooManyConnections(ofUser: uid, holding: counts.byUID[uid, default: 0]))
            }
            counts.total += 1
            if let uid { counts.byUID[uid, default: 0] += 1 }
            admittedTotal.wrappingAdd(1, ordering: .relaxed)
            return nil
        }
    }

    /// Counts a connection that was admitted out.
    func release(uid: UInt32?) {
        counts.withLock { counts in
            counts.total -= 1
            if let uid {
                counts.byUID[uid, default: 1] -= 1
                if counts.byUID[uid] == 0 { counts.byUID[uid] = nil }
            }
        }
        releasedTotal.wrappingAdd(1, ordering: .relaxed)
    }

    /// Connections admitted and closed since depotd started.
    var turnover: (opened: Int, closed: Int) {
        (admittedTotal.load(ordering: .relaxed), releasedTotal.load(ordering: .relaxed))
    }

    /// Connections open now, for stats.
    var total: Int { counts.withLock { $0.total } }

    /// Connections open now from each uid (those whose uid is known).
    var byUser: [UInt32: Int] { counts.withLock { $0.byUID } }
}
