/// The life of depotd's one connection to PostgreSQL, as a value: connecting, connected, waiting to try again,
/// shut down. It decides what a query may do now and what to do after each event; the `PostgresLink` that owns it
/// does the I/O. Generic over the connection and over what stands for a query waiting for the first connection,
/// so it is tested without a database.
///
/// A query is never queued behind a connection that is known lost: while the link waits to try again, queries fail
/// at once with the reason, so a mutation answers a clear error rather than hanging. Only during a connection
/// attempt do they wait for its outcome (at most the connect timeout). A patient waiter (`awaitConnection`: what
/// settles a write lost with its connection) waits through failed attempts for the next connection instead.
package struct LinkStateMachine<Connection, Waiter> {
    package enum State {
        /// An attempt is under way; `failures` attempts in a row failed before it. Queries wait for the outcome;
        /// patient waiters for a connection, however many attempts it takes.
        case connecting(failures: Int, waiters: [Waiter], patient: [Waiter])
        /// Connected and listening; queries use the connection.
        case connected(Connection)
        /// The last attempt failed or the connection was lost (`reason`); the next attempt comes after a delay.
        case waiting(failures: Int, reason: String, patient: [Waiter])
        /// depotd is stopping: no more attempts, no more queries.
        case shutDown
    }

    package private(set) var state: State = .connecting(failures: 0, waiters: [], patient: [])

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
        case .connecting(let failures, var waiters, let patient):
            waiters.append(waiter)
            state = .connecting(failures: failures, waiters: waiters, patient: patient)
            return .wait
        case .connected(let connection):
            return .run(connection)
        case .waiting(_, let reason, _):
            return .fail(reason: reason)
        case .shutDown:
            return .fail(reason: "depotd is stopping")
        }
    }

    /// What a patient waiter may do now: run on the connection, or wait for the next one — through failed attempts
    /// and their delays — until `connected` resumes it or `shutDown` fails it.
    package mutating func awaitConnection(_ waiter: Waiter) -> QueryAction {
        switch state {
        case .connecting(let failures, let waiters, var patient):
            patient.append(waiter)
            state = .connecting(failures: failures, waiters: waiters, patient: patient)
            return .wait
        case .connected(let connection):
            return .run(connection)
        case .waiting(let failures, let reason, var patient):
            patient.append(waiter)
            state = .waiting(failures: failures, reason: reason, patient: patient)
            return .wait
        case .shutDown:
            return .fail(reason: "depotd is stopping")
        }
    }

    /// An attempt succeeded: the waiters to resume with the connection, patient ones included. After shut down, nil:
    /// close it.
    package mutating func connected(_ connection: Connection) -> [Waiter]? {
        switch state {
        case .connecting(_, let waiters, let patient):
            state = .connected(connection)
            return waiters + patient
        case .connected, .waiting:
            preconditionFailure("connected without an attempt under way")
        case .shutDown:
            return nil
        }
    }

    /// What follows a failed attempt or a lost connection.
    package struct Failure {
        /// Queries that waited for the attempt: fail them with the reason. (Patient waiters wait on.)
        package var waiters: [Waiter]
        /// Failed attempts in a row, this one included: what the backoff's window grows with.
        package var failures: Int
        /// True when the connection had been up: the items held are now stale.
        package var lost: Bool
    }

    /// An attempt failed, or the connection was lost, for `reason`. nil after shut down: nothing to do.
    package mutating func failed(reason: String) -> Failure? {
        switch state {
        case .connecting(let failures, let waiters, let patient):
            state = .waiting(failures: failures + 1, reason: reason, patient: patient)
            return Failure(waiters: waiters, failures: failures + 1, lost: false)
        case .connected:
            // The first attempt after a loss starts a new run of failures.
            state = .waiting(failures: 0, reason: reason, patient: [])
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
        case .waiting(let failures, _, let patient):
            state = .connecting(failures: failures, waiters: [], patient: patient)
            return true
        case .connecting, .connected:
            preconditionFailure("retry while not waiting")
        case .shutDown:
            return false
        }
    }

    /// depotd is stopping: the waiters to fail, patient ones included, and the connection to close if there is one.
    package mutating func shutDown() -> (waiters: [Waiter], connection: Connection?) {
        defer { state = .shutDown }
        switch state {
        case .connecting(_, let waiters, let patient): return (waiters + patient, nil)
        case .connected(let connection): return ([], connection)
        case .waiting(_, _, let patient): return (patient, nil)
        case .shutDown: return ([], nil)
        }
    }

    /// Whether depotd is stopping: no connection will come.
    package var isShutDown: Bool {
        if case .shutDown = state { return true }
        return false
    }

    /// Whether the connection is up.
    package var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }
}
