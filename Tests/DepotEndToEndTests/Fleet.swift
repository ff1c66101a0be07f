import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Testing

/// A fleet on a real multi-host network: PostgreSQL in one network namespace, a depotd in each of the others
/// (reaching it over its own veth link, with a password from a file), and a subscriber on every daemon's socket.
final class Fleet: Sendable {
    let network: NetworkFleet
    let cluster: PostgresCluster
    let directory: TemporaryDirectory
    let passwordFile: String
    private let daemons: Locked<[Daemon]>
    /// Every notification each host's subscriber received, in order.
    let watched: [Condition<[StateChange]>]

    static let enabled =
        (PostgresCluster.unavailableReason == nil && NetworkFleet.unavailableReason == nil) || PostgresCluster.mustRun

    private init(network: NetworkFleet, cluster: PostgresCluster, directory: TemporaryDirectory, passwordFile: String) {
        self.network = network
        self.cluster = cluster
        self.directory = directory
        self.passwordFile = passwordFile
        self.daemons = Locked([])
        self.watched = (0..<network.hostCount).map { _ in Condition([]) }
    }

    /// Runs `body` with a fleet of `hosts` daemons on a table of `rows` items (`{"id":"rN","n":N}`), each daemon with
    /// a subscriber; removes everything after, adding the logs to a failure.
    static func with(hosts: Int = 3, rows: Int = 20, _ body: @escaping @Sendable (Fleet) async throws -> Void) async throws {
        let network = try await NetworkFleet.create(hosts: hosts)
        let directory = TemporaryDirectory()
        var fleet: Fleet?
        do {
            let cluster = try await PostgresCluster.start(
                listenAddresses: network.databaseAddresses, namespace: network.databaseNamespace, passwordNetwork: network.network)
            let passwordFile = directory.write("postgres-password", "fleet secret\n")
            chmod(passwordFile, 0o600)
            let made = Fleet(network: network, cluster: cluster, directory: directory, passwordFile: passwordFile)
            fleet = made
            try await cluster.setPassword("fleet secret")
            try await cluster.psql(
                """
                CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL);
                INSERT INTO items SELECT 'r' || g, json_build_object('id', 'r' || g, 'n', g) FROM generate_series(1, \(rows)) g;
                """)
            try await withTimeout(.seconds(300), "the fleet test") {
                try await withThrowingDiscardingTaskGroup { group in
                    for host in 1...hosts {
                        try await made.start(host: host)
                        group.addTask { try await made.watch(host: host) }
                    }
                    try await made.converged()
                    try await body(made)
                    group.cancelAll()
                }
            }
        } catch {
            Issue.record("\(error)\n\(fleet?.logs ?? "")")
        }
        if let fleet {
            for daemon in fleet.daemons.withLock({ $0 }) { await daemon.cleanUp() }
            await fleet.cluster.remove()
        }
        await network.remove()
        directory.remove()
    }

    /// The source depotd on `host` is given: the database's address on its link, the password from the file.
    func sourceURI(host: Int) -> String {
        "postgres://depot@\(network.databaseAddress(forHost: host)):5432/postgres?sslmode=disable&poll_interval=1&connect_timeout=2"
    }

    /// Starts (or starts again, on the same state directory) the daemon of `host`.
    func start(host: Int) async throws {
        let hostDirectory = directory.subdirectory("h\(host)")
        let daemon = try await Daemon.start(
            ["--source", sourceURI(host: host), "--postgres-password-file", passwordFile, "--log-level", "debug"],
            directory: hostDirectory, launcher: network.launcher(host: host))
        daemons.withLock { daemons in
            if daemons.count >= host { daemons[host - 1] = daemon } else { daemons.append(daemon) }
        }
    }

    func daemon(_ host: Int) -> Daemon { daemons.withLock { $0[host - 1] } }

    /// Subscribes to `host`'s daemon and records every notification until cancelled or the daemon goes away.
    func watch(host: Int) async throws {
        let subscription = try await daemon(host).connect().subscribe()
        for await change in subscription {
            watched[host - 1].update { $0.append(change) }
        }
    }

    /// The items and revision the database holds now.
    func truth() async throws -> View {
        let ids = try await cluster.psql(#"SELECT id FROM items ORDER BY id COLLATE "C""#).split(separator: "\n").map(String.init)
        let revision = Int64(try await cluster.psql("SELECT position FROM items_revision").trimmingCharacters(in: .whitespacesAndNewlines))
        return View(revision: revision, stale: false, ids: ids)
    }

    /// Waits until every host's subscriber holds what the database holds, fresh.
    func converged(hosts: [Int]? = nil) async throws {
        let expected = try await truth()
        for host in hosts ?? Array(1...network.hostCount) {
            try await withTimeout(.seconds(60), "host \(host) to show revision \(expected.revision.map(String.init) ?? "-")") {
                await self.watched[host - 1].wait { changes in changes.last.map(View.init) == expected }
            }
        }
    }

    /// Calls `method` on `host`'s daemon.
    func call(host: Int, _ method: String, params: JSONObject? = nil) async throws -> JSONValue {
        let connection = try await daemon(host).connect()
        defer { Task { await connection.close() } }
        return try await connection.call(method, params: params)
    }

    var logs: String {
        daemons.withLock { $0 }.enumerated().map { "--- host \($0 + 1) ---\n\($1.process.standardError.value.suffix(60000))" }.joined(separator: "\n")
            + "\n--- server ---\n\(cluster.serverLog.suffix(3000))"
    }
}

/// What a subscriber holds: the revision, whether stale, the ids in order.
struct View: Equatable, CustomStringConvertible {
    var revision: Int64?
    var stale: Bool
    var ids: [String]

    init(revision: Int64?, stale: Bool, ids: [String]) {
        self.revision = revision
        self.stale = stale
        self.ids = ids
    }

    /// A notification's state; a non-success state holds no view (nil revision, no ids).
    init(_ change: StateChange) {
        let state = change.state
        revision = state["revision"].flatMap { value in
            if case .number(let number) = value { return Int64(number.literal) }
            return nil
        }
        stale = state["stale"] == .bool(true)
        var ids: [String] = []
        if case .array(let items)? = state["items"] {
            for item in items {
                if case .string(let id)? = item["id"] { ids.append(id) }
            }
        }
        self.ids = ids
    }

    var description: String { "revision \(revision.map(String.init) ?? "-")\(stale ? " (stale)" : ""): \(ids.count) items" }
}
