import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of the tests' own: Debian's server binaries, `initdb` in a temporary directory, started
/// and stopped by the test, run as the `postgres` user (the server refuses root), never the host's cluster.
/// It listens on a Unix socket in its directory, and on TCP too when given addresses (the fleet's namespaces).
package final class PostgresCluster: Sendable {
    /// Why a cluster cannot start here, or nil when it can.
    package static var unavailableReason: String? {
        if getuid() != 0 { return "needs root (to run PostgreSQL as the postgres user)" }
        if UserDatabase.uid(ofUser: "postgres") == nil { return "needs the postgres user (apt-get install postgresql)" }
        if binDirectory == nil { return "needs PostgreSQL's server (apt-get install postgresql: /usr/lib/postgresql/*/bin/postgres)" }
        return nil
    }

    /// Under CI=true the tests that need PostgreSQL must run: a skip there would hide a missing install step.
    package static var mustRun: Bool {
        ProcessEnvironment.variables["CI"] == "true"
    }

    /// The newest installed server's bin directory (`/usr/lib/postgresql/15/bin`).
    package static let binDirectory: String? = {
        let versions = TestFiles.entries("/usr/lib/postgresql").filter { access("/usr/lib/postgresql/\($0)/bin/postgres", X_OK) == 0 }
        return versions.compactMap { Int($0) }.max().map { "/usr/lib/postgresql/\($0)/bin" }
    }()

    /// The role every test connects as: a superuser, trusted without a password on the socket and on TCP.
    package static let user = "depot"
    package static let port = 5432

    package let directory: TemporaryDirectory
    /// Where the server's socket is: `directory/.s.PGSQL.5432`.
    package var socketDirectory: String { directory.path }
    package var socketPath: String { directory.file(".s.PGSQL.\(Self.port)") }
    private var dataDirectory: String { directory.file("data") }
    private let listenAddresses: [String]
    /// The network namespace the server runs in; nil: the test's own.
    package let namespace: String?

    /// Creates a cluster (initdb) and starts it. `listenAddresses` are the TCP addresses to listen on besides the
    /// socket (none by default), in network namespace `namespace` when given; connections from `passwordNetwork`
    /// (a CIDR) must then give the password, SCRAM-hashed (`setPassword`), while the socket stays trusted.
    package static func start(
        listenAddresses: [String] = [], namespace: String? = nil, passwordNetwork: String? = nil
    ) async throws -> PostgresCluster {
        if let reason = unavailableReason { throw PostgresClusterError(description: "PostgreSQL cannot run here: \(reason)") }
        let cluster = PostgresCluster(listenAddresses: listenAddresses, namespace: namespace)
        do {
            try await cluster.initialize()
            if let passwordNetwork {
                let rules = (cluster.directory.read("data/pg_hba.conf") ?? "") + "host all all \(passwordNetwork) scram-sha-256\n"
                _ = cluster.directory.write("data/pg_hba.conf", rules)
            }
            try await cluster.startServer()
        } catch {
            cluster.directory.remove()
            throw error
        }
        return cluster
    }

    /// A hot standby of `primary`, streaming its WAL: `pg_basebackup -R` into a cluster of its own, started on its own
    /// socket. It serves reads once it has replayed the primary's state (`waitUntilReplayed`).
    package static func startStandby(of primary: PostgresCluster) async throws -> PostgresCluster {
        let standby = PostgresCluster(listenAddresses: [], namespace: nil)
        do {
            guard let uid = UserDatabase.uid(ofUser: "postgres"), let gid = UserDatabase.gid(ofGroup: "postgres"),
                chown(standby.directory.path, uid, gid) == 0
            else { throw PostgresClusterError(description: "cannot give \(standby.directory.path) to postgres") }
            try await standby.runAsPostgres(
                "pg_basebackup", ["-D", standby.dataDirectory, "-R", "-X", "stream", "-h", primary.socketDirectory, "-p", "\(port)", "-U", user])
            try await standby.startServer()
        } catch {
            standby.directory.remove()
            throw error
        }
        return standby
    }

    /// Waits until this standby has replayed everything `primary` has written so far.
    package func waitUntilReplayed(from primary: PostgresCluster) async throws {
        let target = try await primary.psql("SELECT pg_current_wal_lsn()").filter { !$0.isWhitespace }
        try await withTimeout(.seconds(60), "the standby to replay \(target)") {
            while try await self.psql("SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn").filter({ !$0.isWhitespace }) != "t" {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private init(listenAddresses: [String], namespace: String?) {
        directory = TemporaryDirectory(prefix: "depot-pg")
        self.listenAddresses = listenAddresses
        self.namespace = namespace
    }

    /// Sets the password of the tests' user (for connections from the password network); no quotes in it.
    package func setPassword(_ password: String) async throws {
        precondition(!password.contains("'"), "a test password without quotes")
        try await psql("ALTER ROLE \(Self.user) PASSWORD '\(password)'")
    }

    private func initialize() async throws {
        guard let uid = UserDatabase.uid(ofUser: "postgres"), let gid = UserDatabase.gid(ofGroup: "postgres") else {
            throw PostgresClusterError(description: "there is no postgres user or group")
        }
        guard chown(directory.path, uid, gid) == 0 else {
            throw PostgresClusterError(description: "cannot give \(directory.path) to postgres: \(String(cString: strerror(errno)))")
        }
        try await runAsPostgres(
            "initdb", ["-D", dataDirectory, "-U", Self.user, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]
        )
    }

    /// Starts the server and waits until it accepts connections.
    package func startServer() async throws {
        let options = [
            "-k", socketDirectory, "-p", "\(Self.port)", "-c", "listen_addresses='\(listenAddresses.joined(separator: ","))'",
            "-c", "fsync=off", "-c", "max_connections=200",
        ].joined(separator: " ")
        try await runAsPostgres("pg_ctl", ["-D", dataDirectory, "-l", directory.file("server.log"), "-o", options, "-w", "-t", "120", "start"])
    }

    /// Stops the server (fast: open sessions are ended), keeping its data.
    package func stopServer() async throws {
        try await runAsPostgres("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "-t", "120", "stop"])
    }

    /// Stops the server and removes the cluster.
    package func remove() async {
        _ = try? await stopServer()
        directory.remove()
    }

    /// A `postgres://` source for `table` in `database`, through the cluster's socket, as the tests' superuser;
    /// `parameters` are added to the query (`poll_interval=1`).
    package func sourceURI(table: String = "items", database: String = "postgres", parameters: String = "") -> String {
        "postgres://\(Self.user)@/\(database)?host=\(socketDirectory)&table=\(table)" + (parameters.isEmpty ? "" : "&" + parameters)
    }

    /// Runs `sql` with psql as the tests' superuser in `database`; returns its output, unaligned, one row per line.
    @discardableResult
    package func psql(_ sql: String, database: String = "postgres") async throws -> String {
        guard let bin = Self.binDirectory else { throw PostgresClusterError(description: "no PostgreSQL here") }
        let result = try await CommandResult.run(
            "\(bin)/psql",
            [
                "-h", socketDirectory, "-p", "\(Self.port)", "-U", Self.user, "-d", database, "-v", "ON_ERROR_STOP=1", "-X", "-A", "-t", "-q", "-f",
                "-",
            ],
            environment: ["PATH": "/usr/bin:/bin"],
            input: sql
        )
        guard result.status == 0 else {
            throw PostgresClusterError(description: "psql failed (\(result.status)) on \(sql.prefix(200)): \(result.standardError)")
        }
        return result.standardOutput
    }

    /// What the server wrote to its log: for a failing test's message.
    package var serverLog: String {
        directory.read("server.log") ?? ""
    }

    private func runAsPostgres(_ program: String, _ arguments: [String]) async throws {
        guard let bin = Self.binDirectory else { throw PostgresClusterError(description: "no PostgreSQL here") }
        let command = ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "\(bin)/\(program)"] + arguments
        let launched = namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] + command } ?? command
        let result = try await CommandResult.run(
            launched[0], Array(launched.dropFirst()), environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"])
        guard result.status == 0 else {
            throw PostgresClusterError(
                description: "\(program) failed (\(result.status)): \(result.standardError)\(result.standardOutput)\n\(serverLog.suffix(2000))"
            )
        }
    }
}

/// Why the tests' PostgreSQL cluster could not be made, started or used.
package struct PostgresClusterError: Error, CustomStringConvertible {
    package let description: String
}
