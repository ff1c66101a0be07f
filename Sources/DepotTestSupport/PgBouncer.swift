import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// PgBouncer (Debian's) in front of a test's `PostgresCluster`, in the pool mode the test asks for: its own
/// configuration in a temporary directory, run as `postgres` (it refuses root), listening on a Unix socket there,
/// trusting the tests' user, who may also use its console (`SHOW POOLS`).
package final class PgBouncer: Sendable {
    /// Why PgBouncer cannot start here, or nil when it can.
    package static var unavailableReason: String? {
        if let reason = PostgresCluster.unavailableReason { return reason }
        if access(program, X_OK) != 0 { return "needs PgBouncer (apt-get install pgbouncer: \(program))" }
        return nil
    }

    package static let program = "/usr/sbin/pgbouncer"
    package static let port = 6432

    package let directory: TemporaryDirectory
    /// Where its socket is: `directory/.s.PGSQL.6432`.
    package var socketDirectory: String { directory.path }

    /// Writes the configuration — database `postgres` of `cluster`, `poolMode`, at most `poolSize` server connections
    /// — and starts it, waiting until its socket accepts.
    package static func start(in front: PostgresCluster, poolMode: String = "transaction", poolSize: Int = 5) async throws -> PgBouncer {
        if let reason = unavailableReason { throw PostgresClusterError(description: "PgBouncer cannot run here: \(reason)") }
        let bouncer = PgBouncer()
        guard let uid = UserDatabase.uid(ofUser: "postgres"), let gid = UserDatabase.gid(ofGroup: "postgres"),
            chown(bouncer.directory.path, uid, gid) == 0
        else {
            bouncer.directory.remove()
            throw PostgresClusterError(description: "cannot give \(bouncer.directory.path) to postgres")
        }
        bouncer.directory.write("users.txt", "\"\(PostgresCluster.user)\" \"\"\n")
        bouncer.directory.write(
            "pgbouncer.ini",
            """
            [databases]
            postgres = host=\(front.socketDirectory) port=\(PostgresCluster.port) dbname=postgres

            [pgbouncer]
            listen_addr =
            listen_port = \(port)
            unix_socket_dir = \(bouncer.directory.path)
            auth_type = trust
            auth_file = \(bouncer.directory.file("users.txt"))
            admin_users = \(PostgresCluster.user)
            pool_mode = \(poolMode)
            default_pool_size = \(poolSize)
            max_client_conn = 5000
            logfile = \(bouncer.directory.file("pgbouncer.log"))
            pidfile = \(bouncer.directory.file("pgbouncer.pid"))

            """)
        do {
            try await bouncer.startProcess()
        } catch {
            bouncer.directory.remove()
            throw error
        }
        return bouncer
    }

    private init() {
        directory = TemporaryDirectory(prefix: "depot-pgb")
    }

    /// Starts PgBouncer as a daemon of its own (`-d`) and waits until its socket accepts a connection.
    package func startProcess() async throws {
        let command = [
            "/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", Self.program, "-d", directory.file("pgbouncer.ini"),
        ]
        let result = try await CommandResult.run(command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin"])
        guard result.status == 0 else {
            throw PostgresClusterError(description: "pgbouncer failed (\(result.status)): \(result.standardError)\(log.suffix(2000))")
        }
        try await withTimeout(.seconds(30), "PgBouncer to accept") {
            while (try? await self.console("SHOW VERSION")) == nil {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Stops it (SIGTERM to the pid it wrote) and waits until it is gone: every client connection is cut.
    package func stopProcess() async throws {
        guard let text = directory.read("pgbouncer.pid"), let pid = pid_t(text.filter { !$0.isWhitespace }) else { return }
        kill(pid, SIGTERM)
        try await withTimeout(.seconds(30), "PgBouncer to stop") {
            while kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// Stops it and removes its directory.
    package func remove() async {
        _ = try? await stopProcess()
        directory.remove()
    }

    /// A `postgres://` source for `table` through PgBouncer's socket; `parameters` are added to the query.
    package func sourceURI(table: String = "items", parameters: String = "") -> String {
        "postgres://\(PostgresCluster.user)@/postgres?host=\(socketDirectory)&port=\(Self.port)&table=\(table)"
            + (parameters.isEmpty ? "" : "&" + parameters)
    }

    /// Runs `command` on PgBouncer's console (`SHOW POOLS`, `SHOW SERVERS`); its output, unaligned, `|` between fields.
    @discardableResult
    package func console(_ command: String) async throws -> String {
        guard let bin = PostgresCluster.binDirectory else { throw PostgresClusterError(description: "no PostgreSQL here") }
        let result = try await CommandResult.run(
            "\(bin)/psql",
            ["-h", socketDirectory, "-p", "\(Self.port)", "-U", PostgresCluster.user, "-d", "pgbouncer", "-X", "-A", "-t", "-c", command],
            environment: ["PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw PostgresClusterError(description: "\(command) failed: \(result.standardError)") }
        return result.standardOutput
    }

    /// What PgBouncer wrote to its log: for a failing test's message.
    package var log: String {
        directory.read("pgbouncer.log") ?? ""
    }
}
