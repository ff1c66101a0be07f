/// The life of depotd's one connection to PostgreSQL, as a value: connecting, connected, waiting to try again,
/// shut down. It decides what a query may do now and what to do after each event; the `PostgresLink` that owns it
/// does the I/O. Generic over the connection and over what stands for a query waiting for the first connection,
/// so it is tested without a database.
///
/// A query is never queued behind a connection that is known lost: while the link waits to try again, queries fail
/// at once with the reason, so a mutation answers a clear error rather than hanging. Only during a connection
/// attempt do they wait for its outcome (at most the connect timeout).
package struct LinkStateMachine<Connection, Waiter> {
    package enum State {
        /// An attempt is under way; `failures` attempts in a row failed before it. Queries wait for the outcome.
        case connecting(failures: Int, waiters: [Waiter])
        /// Connected and listening; queries use the connection.
        case connected(Connection)
        /// The last attempt failed or the connection was lost (`reason`); the next attempt comes after a delay.
        case waiting(failures: Int, reason: String)
        /// depotd is stopping: no more attempts, no more queries.
        case shutDown
    }

    package private(set) var state: State = .connecting(failures: 0, waiters: [])

    package init() {}

    /// What a query may do now.
    package enum QueryAction {
        case run(Connection)
        /// Wait: the query's waiter was kept, and is resumed by `connected` or failed by `failed`/`shutDown`.
        case wait
        case fail(reason: String)
    }

    package mutating func query(_ waiter: Waiter) -> QueryAction {
        switch state {
        case .connecting(let failures, var waiters):
            waiters.append(waiter)
            state = .connecting(failures: failures, waiters: waiters)
            return .wait
        case .connected(let connection):
            return .run(connection)
        case .waiting(_, let reason):
            return .fail(reason: reason)
        case .shutDown:
            return .fail(reason: "depotd is stopping")
        }
    }

    /// An attempt succeeded: the waiters to resume with the connection. After shut down, nil: close it.
    package mutating func connected(_ connection: Connection) -> [Waiter]? {
        switch state {
        case .connecting(_, let waiters):
            state = .connected(connection)
            return waiters
        case .connected, .waiting:
            preconditionFailure("connected without an attempt under way")
        case .shutDown:
            return nil
        }
    }

    /// What follows a failed attempt or a lost connection.
    package struct Failure {
        /// Queries that waited for the attempt: fail them with the reason.
        package var waiters: [Waiter]
        /// Failed attempts in a row, this one included: what the backoff's window grows with.
        package var failures: Int
        /// True when the connection had been up: the items held are now stale.
        package var lost: Bool
    }

    /// An attempt failed, or the connection was lost, for `reason`. nil after shut down: nothing to do.
    package mutating func failed(reason: String) -> Failure? {
        switch state {
        case .connecting(let failures, let waiters):
            state = .waiting(failures: failures + 1, reason: reason)
            return Failure(waiters: waiters, failures: failures + 1, lost: false)
        case .connected:
            // The first attempt after a loss starts a new run of failures.
            state = .waiting(failures: 0, reason: reason)
            return Failure(waiters: [], failures: 0, lost: true)
        case .waiting:
            preconditionFailure("failed while waiting: no attempt is under way")
        case .shutDown:
            return nil
        }
    }

    /// The delay is over: start the next attempt. False after shut down.
    package mutating func retry() -> Bool {
        switch state {
        case .waiting(let failures, _):
            state = .connecting(failures: failures, waiters: [])
            return true
        case .connecting, .connected:
            preconditionFailure("retry while not waiting")
        case .shutDown:
            return false
        }
    }

    /// depotd is stopping: the waiters to fail, and the connection to close if there is one.
    package mutating func shutDown() -> (waiters: [Waiter], connection: Connection?) {
        defer { state = .shutDown }
        switch state {
        case .connecting(_, let waiters): return (waiters, nil)
        case .connected(let connection): return ([], connection)
        case .waiting, .shutDown: return ([], nil)
        }
    }

    /// Whether the connection is up.
    package var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }
}
