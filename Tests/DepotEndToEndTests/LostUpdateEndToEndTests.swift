import DepotClient
import DepotJSON
import DepotTestSupport
import DepotWire
import Foundation
import Testing

extension WriteLoadTests {
    /// Eight clients increment one counter 200 times each, read-modify-write with `ifMatch`, retrying on a conflict:
    /// a conditional write never loses an update, so the counter ends at exactly 1,600 — through one daemon on a file,
    /// and through two daemons of a PostgreSQL fleet, each holding its own copy of the table.
    @Suite("depotd: no lost update, with ifMatch", .timeLimit(.minutes(10)))
    struct LostUpdateEndToEndTests {
        static let clients = 8
        static let increments = 200

        /// What one client did: its increments, and the conflicts it retried.
        struct Tally: Sendable {
            var made = 0
            var conflicts = 0
        }

        /// Increments the counter `id` `increments` times through `connection`: reads it with its etag and puts n + 1 on
        /// that etag; a conflict's data — the item as it is now and its etag — is the next base (a fresh read when it has
        /// none).
        static func increment(_ connection: DepotConnection, id: JSONValue) async throws -> Tally {
            var tally = Tally()
            var base: JSONValue?
            while tally.made < increments {
                let current: JSONValue
                if let known = base {
                    current = known
                } else {
                    current = try await connection.call(GetRequest(id: id.stringValue ?? "\(id)", meta: true))
                }
                base = nil
                guard let etag = current["etag"]?.stringValue, let n = current["item"]?["n"]?.numberValue?.intValue else {
                    throw Unexpected(description: "the counter as read: \(current.jsonText)")
                }
                do {
                    _ = try await connection.call(PutRequest(id: id, item: ["n": .number(JSONNumber(n + 1))], ifMatch: etag))
                    tally.made += 1
                } catch {
                    guard case .remote(let remote) = error, remote.code == DepotErrorCode.conflict else { throw error }
                    tally.conflicts += 1
                    if let data = remote.data, data["etag"]?.stringValue != nil { base = data }
                }
            }
            return tally
        }

        /// Runs the clients, client `k` on `connections[k % connections.count]`, and answers their tallies.
        static func race(_ connect: @escaping @Sendable (Int) async throws -> DepotConnection, id: JSONValue) async throws -> [Tally] {
            try await withThrowingTaskGroup(of: Tally.self) { group in
                for client in 0..<clients {
                    let connection = try await connect(client)
                    group.addTask { try await increment(connection, id: id) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        @Test("through one daemon on a file: 8 × 200 increments make 1,600, and the file says so")
        func file() async throws {
            let directory = TemporaryDirectory()
            let path = directory.write("items.json", #"[{"id": "counter", "n": 0}, {"id": "other", "n": 0}]"# + "\n")
            try await withDaemon(["--source", "file:" + path], directory: directory, timeout: .seconds(540)) { daemon in
                _ = try await daemon.connect().call(LoadRequest())
                let tallies = try await Self.race({ _ in try await daemon.connect() }, id: "counter")
                #expect(tallies.map(\.made) == Array(repeating: Self.increments, count: Self.clients))
                let final = try await daemon.connect().call(GetRequest(id: "counter"))
                #expect(final["n"] == .number(JSONNumber(Self.clients * Self.increments)))
                let stored = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                #expect(stored.arrayValue?.first?["n"] == .number(JSONNumber(1600)), "the file holds 1,600")
                #expect(tallies.map(\.conflicts).reduce(0, +) > 0, "the clients did race: conflicts were retried")
            }
        }

        @Test(
            "through two daemons of a PostgreSQL fleet: 8 × 200 increments make 1,600 in the table and on both daemons", .enabled(if: Fleet.enabled))
        func fleet() async throws {
            try await Fleet.with(hosts: 2, rows: 2) { fleet in
                try await fleet.cluster.psql(#"INSERT INTO items VALUES ('counter', '{"id": "counter", "n": 0}')"#)
                try await fleet.converged()
                let tallies = try await Self.race({ try await fleet.daemon($0 % 2 + 1).connect() }, id: "counter")
                #expect(tallies.map(\.made) == Array(repeating: Self.increments, count: Self.clients))
                #expect(try await fleet.cluster.psql("SELECT doc->>'n' FROM items WHERE id = 'counter'") == "1600\n")
                try await fleet.converged()
                for host in 1...2 {
                    let final = try await fleet.call(host: host, "get", params: ["id": "counter"])
                    #expect(final["n"] == .number(JSONNumber(1600)), "host \(host)")
                }
                #expect(tallies.map(\.conflicts).reduce(0, +) > 0, "the clients did race: conflicts were retried")
            }
        }
    }
}

struct Unexpected: Error, CustomStringConvertible {
    let description: String
}
