import DepotCore
import DepotPlatform
import DepotSources
import Logging
import PostgresNIO

/// Settling a write whose connection was lost as it committed: until then its statement may still reach the server
/// (retransmitted when a partition heals, or held in a buffer on the way) and be made after depotd answered.
extension PostgresLink {
    /// What settles a write whose connection was lost as it committed: until then its statement may still reach the
    /// server (retransmitted when a partition heals, or held in a buffer on the way) and be made after depotd answered.
    package enum Settlement: Sendable, CustomStringConvertible {
        /// End the connection's server process (a session of depotd's own: `feed=listen`).
        case endBackend(Backend)
        /// Record the write's id first (`ChangeLogSQL.fence`): the statement, which records it too, then fails
        /// whatever server process it reaches — what works through a pooler (`feed=poll`).
        case fenceWrite(id: String)

        package var description: String {
            switch self {
            case .endBackend(let backend): "ending \(backend)"
            case .fenceWrite(let id): "fencing off write \(id)"
            }
        }
    }

    /// Settles a write whose connection was lost as it committed (`Settlement`) and returns true once done: from then
    /// on the write is made or not, for good. Waits for the link's next connection, tries again while the server does
    /// not let it (a stopped server), and gives up after `limit` (false: it may still be made), when depotd stops, or
    /// when the database refuses (a role may end its own sessions; `fence` needs INSERT on the writes table).
    package func settle(_ settlement: Settlement, within limit: Duration) async -> Bool {
        logger.notice("a write's connection was lost as it committed: \(settlement) at \(address) to settle it before answering")
        do {
            return try await withDeadline(limit, on: sourceLoop.clock, preferring: sourceLoop) { [self] in
                while true {
                    do {
                        let settled = try await withSession("settle a write: \(settlement)", patient: true) { session, _ in
                            switch settlement {
                            case .endBackend(let backend): try await Self.end(backend, on: session.connection, logger: self.logger)
                            case .fenceWrite(let id): try await Self.fence(id, with: self.sql, on: session.connection, logger: self.logger)
                            }
                        }
                        if settled {
                            logger.info("\(settlement) at \(address) done: the write is settled")
                            return true
                        }
                        try await sourceLoop.clock.sleep(for: .milliseconds(50))  // a process signalled, not yet gone
                    } catch let error as SourceError where error.kind == .refused {
                        logger.warning("cannot settle a write at \(address) (\(settlement)): \(error.message)")
                        return false
                    } catch let error as SourceError where error.kind == .unavailable {
                        // The new connection was lost too, or the server does not answer: the next connection — unless
                        // depotd is stopping, when there is none. (A connection closed before the link noticed is
                        // handed out again until it does: a moment, not a spin.)
                        if machine.withLock({ $0.isShutDown }) { throw error }
                        try await sourceLoop.clock.sleep(for: .milliseconds(20))
                    }
                }
            }
        } catch {
            logger.warning("could not settle a write at \(address) within \(limit.text) (\(settlement)): it may still be made")
            return false
        }
    }

    /// Records write `id` as fenced off unless its statement recorded it first: true, either way it is settled.
    private static func fence(_ id: String, with sql: ChangeLogSQL, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(id)
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql.fence, binds: binds), logger: logger).collect()
        return true
    }

    /// Asks the server to end `backend`: true once it is gone (or is the session asking, whose statements are all
    /// answered), false while it is still there — signalled now, looked for again. (pg_terminate_backend's own wait,
    /// PostgreSQL 14's, is not used: older servers have none.)
    private static func end(_ backend: Backend, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let query: PostgresQuery = """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
            WHERE pid = \(backend.pid) AND backend_start::text = \(backend.started) AND pid <> pg_backend_pid()
            """
        for try await _ in try await connection.query(query, logger: logger).decode(Bool.self) { return false }
        return true
    }
}
