import DepotCore
package import DepotPlatform
package import DepotSources
package import Logging
import NIOCore
import NIOPosix
import NIOSSL
package import PostgresNIO

#if canImport(Glibc)
import Glibc
#endif

/// depotd's one connection to PostgreSQL: opened, kept listening on the change feed's channel, and opened again
/// after a loss with jittered backoff (see `LinkStateMachine`, `ReconnectBackoff`). Queries (the source's loads and
/// deletes, the feed's reads) run on it with a time limit; a query that overruns closes it, which is how a
/// connection lost without a word (a partitioned network) is noticed.
///
/// One connection per daemon, not a pool: the database's cost of a fleet is one connection per machine, and LISTEN
/// needs a session of its own anyway (a pooler in transaction mode would not carry it).
package final class PostgresLink: Sendable {
    /// What the link tells whoever runs it.
    package enum Event: Sendable, Equatable {
        /// Connected and listening: catch up now (every change before LISTEN has to be read).
        case connected
        /// A wake-up: the log reached `position` (nil when the payload was not a position).
        case changed(position: Int64?)
        /// The connection was lost, for this reason; the next attempt is scheduled.
        case lost(reason: String)
    }

    /// The server process serving one of depotd's connections: what `settle` ends after the connection was lost. Its
    /// start time, as the server writes it, tells it apart from a later process given the same pid.
    package struct Backend: Sendable, Hashable, CustomStringConvertible {
        package let pid: Int32
        package let started: String
        package var description: String { "backend \(pid)" }
    }

    /// A connection with the server process at its other end.
    struct Session: Sendable {
        let connection: PostgresConnection
        let backend: Backend
    }

    typealias Waiter = CheckedContinuation<Session, any Error>

    /// What the server at the other end is to depotd.
    package enum Role: Sendable, Equatable {
        /// The primary: the change feed is installed there, writes go there, and (`feed=listen`) it wakes depotd.
        case primary
        /// A hot standby that loads and catch-ups may read from: read-only, so the feed is not installed there (it
        /// comes with the primary's WAL), and it carries no NOTIFY, so nothing is listened to.
        case replica
    }

    package let address: PostgresAddress
    package let role: Role
    package let sql: ChangeLogSQL
    private let password: PostgresPassword
    private let backoff: ReconnectBackoff
    private let queryTimeout: Duration
    /// Where the connection is opened and its queries' time limits kept: the `SourceLoop` that the change feed and
    /// the repository's mutations prefer (depotd's), so a query's answer reaches them without a thread hop.
    let sourceLoop: SourceLoop
    let logger: Logger
    let machine = Locked(LinkStateMachine<Session, Waiter>())

    package init(
        address: PostgresAddress,
        password: PostgresPassword,
        backoff: ReconnectBackoff = .standard,
        queryTimeout: Duration? = nil,
        role: Role = .primary,
        sourceLoop: SourceLoop,
        logger: Logger
    ) {
        self.sourceLoop = sourceLoop
        self.address = address
        self.role = role
        self.sql = ChangeLogSQL(address: address)
        self.password = password
        self.backoff = backoff
        self.queryTimeout = queryTimeout ?? .seconds(address.connectTimeout)
        self.logger = logger
    }

    /// Whether the connection is up now.
    package var isConnected: Bool {
        machine.withLock { $0.isConnected }
    }

    // MARK: Queries

    /// Runs `body` on the connection within the query time limit. Waits for an attempt under way; fails at once
    /// with `SourceError.unavailable` while the link waits to try again, saying why.
    package func withConnection<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(what) { connection, _ in try await body(connection) }
    }

    /// Runs `body` on the connection; the time limit counts from the last time `body` told its `QueryProgress` that
    /// the answer advanced (each row read), so a long answer that keeps coming is not taken for a dead connection.
    package func withConnection<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection, QueryProgress) async throws -> T
    ) async throws -> T {
        try await withSession(what) { session, progress in try await body(session.connection, progress) }
    }

    /// Runs `body` on the connection and the server process at its end; `patient`, it waits for the next connection
    /// however long the link takes to make one (the caller bounds it), rather than failing while the link waits to
    /// try again.
    func withSession<T: Sendable>(
        _ what: String, patient: Bool = false, _ body: @escaping @Sendable (Session, QueryProgress) async throws -> T
    ) async throws -> T {
        let session = try await acquire(what, patient: patient)
        let connection = session.connection
        // Closed under the link before its listener noticed: a query now would be dropped (see `withQueryTimeout`).
        guard !connection.isClosed else { throw notConnected(what, "the connection closed") }
        let progress = QueryProgress()
        let outcome = await withQueryTimeout(queryTimeout, on: connection, progress: progress) { _ in
            try await body(session, progress)
        }
        switch outcome {
        case .success(let value):
            return value
        case .failure(is QueryTimedOut):
            logger.warning("\(what) got no answer from \(address) within \(queryTimeout.text); closing the connection")
            throw SourceError(.unavailable, "\(what): \(address) did not answer within \(queryTimeout.text); reconnecting")
        case .failure(let error as PSQLError):
            throw Self.sourceError(what, error, address: address)
        case .failure(let error):
            throw error
        }
    }

    /// Runs `body` on `connection`, and gives up waiting once `limit` passes without `progress`, or its caller is
    /// cancelled (`withDeadline`, which does not wait for a query postgres-nio dropped as the connection closed under
    /// it: such a query never finishes). Nothing back in time means the connection is presumed dead: it is closed,
    /// which ends the listener, which reconnects, and fails the query if postgres-nio still holds it.
    private func withQueryTimeout<T: Sendable>(
        _ limit: Duration, on connection: PostgresConnection, progress: QueryProgress = QueryProgress(),
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async -> Result<T, any Error> {
        do {
            // On the source loop, whose own timers keep the time: no other thread is woken for the query or its limit.
            return .success(
                try await withDeadline(limit, countingFrom: { progress.lastAdvanced }, on: sourceLoop.clock, preferring: sourceLoop) {
                    try await body(connection)
                })
        } catch is DeadlineExceeded {
            try? await connection.close()
            return .failure(QueryTimedOut())
        } catch {
            return .failure(error)
        }
    }

    private struct QueryTimedOut: Error, CustomStringConvertible {
        var description: String { "the connection is presumed lost" }
    }

    /// The connection, once up.
    private func acquire(_ what: String, patient: Bool) async throws -> Session {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            switch machine.withLock({ patient ? $0.awaitConnection(waiter) : $0.query(waiter) }) {
            case .run(let connection): waiter.resume(returning: connection)
            case .wait: break
            case .fail(let reason): waiter.resume(throwing: notConnected(what, reason))
            }
        }
    }

    private func notConnected(_ what: String, _ reason: String) -> SourceError {
        SourceError(.unavailable, "\(what): not connected to \(address) (\(reason)); depotd is reconnecting, try again shortly")
    }

    /// A PostgreSQL error as a source error: the server's message and SQLSTATE, not postgres-nio's generic text.
    static func sourceError(_ what: String, _ error: PSQLError, address: PostgresAddress) -> SourceError {
        if let server = error.serverInfo, let message = server[.message] {
            let detail = [server[.detail], server[.hint]].compactMap { $0 }.joined(separator: "; ")
            let code = server[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return SourceError(.refused, "\(what): \(address) said: \(message)\(code)\(detail.isEmpty ? "" : ": \(detail)")")
        }
        return SourceError(.unavailable, "\(what): \(address): \(PostgresErrors.describe(error))")
    }

    // MARK: Running

    /// Keeps the connection: connects, makes sure the change feed is installed, LISTENs, reports `connected`,
    /// then every wake-up; after a loss reports `lost` and tries again after a jittered delay. Returns when the
    /// task is cancelled, with the connection closed.
    package func run(_ report: @escaping @Sendable (Event) -> Void) async {
        var generator = SystemRandomNumberGenerator()
        // Each connection's number, for postgres-nio's logs: this loop makes them one at a time.
        var number = 0
        while !Task.isCancelled {
            number += 1
            let reason = await connectAndListen(report, number: number)
            guard let failure = machine.withLock({ $0.failed(reason: reason) }) else { break }
            for waiter in failure.waiters { waiter.resume(throwing: notConnected("the query", reason)) }
            if failure.lost {
                logger.warning("lost the connection to \(address): \(reason)")
                report(.lost(reason: reason))
            }
            let delay = backoff.delay(afterFailures: failure.failures, using: &generator)
            logger.warning(
                "cannot reach \(address): \(reason); next attempt in \(delay.text)",
                metadata: ["attempt": "\(failure.failures + 1)"])
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled, machine.withLock({ $0.retry() }) else { break }
        }
        let (waiters, session) = machine.withLock { $0.shutDown() }
        for waiter in waiters { waiter.resume(throwing: notConnected("the query", "depotd is stopping")) }
        try? await session?.connection.close()
    }

    /// One connection's life: returns why it ended.
    private func connectAndListen(_ report: @escaping @Sendable (Event) -> Void, number: Int) async -> String {
        let connection: PostgresConnection
        do {
            connection = try await connect(number: number)
        } catch {
            let reason = Self.describe(error)
            // PgBouncer refuses the startup parameter a session of depotd's own sets; LISTEN needs such a session.
            guard address.feed == .listen, reason.contains("unsupported startup parameter") else { return reason }
            return reason + "; if that is a pooler (PgBouncer), add feed=poll to the URI: feed=listen needs a session of its own"
        }
        do {
            let installed = await withQueryTimeout(queryTimeout * 3, on: connection) {
                try await self.installFeedIfNeeded(on: $0)
                return try await Self.backend(of: $0, logger: self.logger)
            }
            let backend: Backend
            switch installed {
            case .success(let found):
                backend = found
            case .failure(let error):
                try? await connection.close()
                return error is QueryTimedOut ? "setting up took longer than \((queryTimeout * 3).text)" : Self.describe(error)
            }
            let session = Session(connection: connection, backend: backend)
            switch role == .replica ? .poll : address.feed {
            case .listen:
                try await connection.listen(on: sql.channel) { notifications in
                    guard connected(session, report, "listening on \(sql.channel)") else { return }
                    for try await notification in notifications {
                        report(.changed(position: Int64(notification.payload)))
                    }
                }
            case .poll:
                // Nothing kept in the session: the connection lives until it closes (a query's time-out closes it) or
                // depotd stops.
                let how = role == .replica ? "a replica to read from" : "reading its change log every \(address.pollInterval.text) (feed=poll)"
                if connected(session, report, how) {
                    try await withTaskCancellationHandler {
                        try await connection.closeFuture.get()
                    } onCancel: {
                        connection.close().whenComplete { _ in }
                    }
                }
            }
            try? await connection.close()
            return Task.isCancelled ? "depotd is stopping" : "the server closed the connection"
        } catch {
            try? await connection.close()
            return Self.describe(error)
        }
    }

    /// The connection is up: the queries that waited for it run, and the feed catches up. False when depotd is stopping.
    private func connected(_ session: Session, _ report: @Sendable (Event) -> Void, _ how: String) -> Bool {
        guard let waiters = machine.withLock({ $0.connected(session) }) else { return false }
        for waiter in waiters { waiter.resume(returning: session) }
        logger.info("connected to \(address), \(how)")
        report(.connected)
        return true
    }

    private func connect(number: Int) async throws -> PostgresConnection {
        let user = address.user ?? UserDatabase.account(uid: getuid(), gid: getgid()).name ?? "postgres"
        let secret = try password.read()
        var configuration: PostgresConnection.Configuration
        switch address.endpoint {
        case .tcp(let host, let port):
            configuration = .init(
                host: host, port: port, username: user, password: secret, database: address.database ?? user, tls: try tls(host: host))
        case .unixSocket(let directory, let port):
            configuration = .init(
                unixSocketPath: PostgresAddress.Endpoint.socketPath(directory: directory, port: port), username: user, password: secret,
                database: address.database ?? user)
        }
        configuration.options.connectTimeout = .seconds(Int64(address.connectTimeout))
        // depotd's statements are small lookups by key. Planned for a catch-up of up to 10,000 changes they can cost
        // past jit_above_cost, and compiling them took ~60 ms of every ~1 ms catch-up; a server setting cannot
        // help, since it is the plan's estimate that crosses it.
        configuration.options.additionalStartupParameters = [("application_name", "depotd"), ("jit", "off")]
        do {
            return try await PostgresConnection.connect(
                on: sourceLoop.eventLoop, configuration: configuration, id: number, logger: logger)
        } catch  where address.feed == .poll && Self.describe(error).contains("unsupported startup parameter") {
            // A pooler refuses startup parameters it does not know (PgBouncer: "unsupported startup parameter: jit"),
            // and feed=poll is for poolers: connect without it; the DBA turns JIT off for depotd's role (README).
            logger.debug("\(address) refused the jit startup parameter (a pooler); connecting without it")
            configuration.options.additionalStartupParameters = [("application_name", "depotd")]
            return try await PostgresConnection.connect(
                on: sourceLoop.eventLoop, configuration: configuration, id: number, logger: logger)
        }
    }

    /// The server process at the other end of `connection`.
    private static func backend(of connection: PostgresConnection, logger: Logger) async throws -> Backend {
        let rows = try await connection.query(
            "SELECT pid, backend_start::text FROM pg_stat_activity WHERE pid = pg_backend_pid()", logger: logger
        ).decode((Int32, String).self)
        for try await (pid, started) in rows { return Backend(pid: pid, started: started) }
        throw SetupError(message: "pg_stat_activity does not list depotd's own session")
    }

    /// libpq's sslmode as postgres-nio's TLS: `allow` and `prefer` try TLS without checking the certificate,
    /// `require` insists on it, `verify-ca` checks the chain, `verify-full` the chain and the host name.
    private func tls(host: String) throws -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch address.tlsMode {
        case .disable:
            return .disable
        case .allow, .prefer:
            tls.certificateVerification = .none
            return .prefer(try NIOSSLContext(configuration: tls))
        case .require:
            tls.certificateVerification = .none
            return .require(try NIOSSLContext(configuration: tls))
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
            return .require(try NIOSSLContext(configuration: tls))
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            return .require(try NIOSSLContext(configuration: tls))
        }
    }

    /// Runs the change feed's setup when the installed one is missing or of another version. A user without the
    /// right to create it gets an error that says how a DBA can.
    private func installFeedIfNeeded(on connection: PostgresConnection) async throws {
        var installed: String?
        var tableExists = false
        for try await (version, exists) in try await connection.query(PostgresQuery(unsafeSQL: sql.installedVersion), logger: logger)
            .decode((String?, Bool).self)
        {
            (installed, tableExists) = (version, exists)
        }
        guard tableExists else {
            throw SetupError(
                message:
                    "\(address) has no table \(sql.table); create it, e.g. CREATE TABLE \(sql.table) (\(PostgresAddress.quoted(address.idColumn)) text PRIMARY KEY, \(PostgresAddress.quoted(address.docColumn ?? "doc")) json NOT NULL)"
            )
        }
        guard installed != ChangeLogSQL.version else { return }
        guard role == .primary else {
            throw SetupError(
                message:
                    "\(address) is read-only and has \(installed.map { "the change feed \($0)" } ?? "no change feed") where depotd needs \(ChangeLogSQL.version); it comes from the primary once depotd has installed it there and the replica has replayed it"
            )
        }
        logger.notice(
            "installing the change feed of \(sql.table) (\(ChangeLogSQL.version)\(installed.map { ", replacing \($0)" } ?? ""))")
        do {
            for statement in sql.setupStatements {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).collect()
            }
        } catch let error as PSQLError {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw SetupError(
                message:
                    "cannot install the change feed of \(sql.table): \(Self.sourceError("setup", error, address: address).message); have the database's owner run the SQL that `depotd --print-postgres-setup --source '\(address)'` prints"
            )
        }
    }

    struct SetupError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError { return PostgresErrors.describe(error) }
        return String(describing: error)
    }
}
