import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// Three depotd on three hosts (network namespaces), one PostgreSQL on a fourth: removals through any daemon and
/// writes straight to the table reach every daemon's subscribers, with the same items at the same revision;
/// partitions, a kill -9 and a database restart end the same way.
@Suite("depotd fleet: PostgreSQL on a real multi-host network", .enabled(if: Fleet.enabled))
struct FleetEndToEndTests {
    @Test("random removals through random daemons and writes from outside: after each, every subscriber converges")
    func randomChanges() async throws {
        try await Fleet.with { fleet in
            var generator = SplitMix64(seed: 16)
            var next = 1000
            for step in 0..<24 {
                let held = try await fleet.truth().ids
                // Removals through a daemon, and inserts, updates and deletes from outside; inserts only when empty.
                let operation = held.isEmpty ? 2 : Int.random(in: 0..<5, using: &generator)
                let id = held.randomElement(using: &generator) ?? ""
                switch operation {
                case 0, 1:
                    let host = Int.random(in: 1...3, using: &generator)
                    _ = try await fleet.call(host: host, "remove", params: ["id": .string(id), "optimistic": .bool(Bool.random(using: &generator))])
                case 2:
                    next += 1
                    try await fleet.cluster.psql("INSERT INTO items VALUES ('r\(next)', json_build_object('id', 'r\(next)', 'n', \(next)))")
                case 3:
                    try await fleet.cluster.psql("UPDATE items SET doc = json_build_object('id', id, 'n', \(step)) WHERE id = '\(id)'")
                default:
                    try await fleet.cluster.psql("DELETE FROM items WHERE id = '\(id)'")
                }
                try await fleet.converged()
            }
            // The same items, byte for byte, in every daemon.
            let states = try await (1...3).asyncMap { host in try await fleet.call(host: host, "state") }
            #expect(states[0]["items"] == states[1]["items"] && states[1]["items"] == states[2]["items"])
            #expect(states[0]["revision"] == states[2]["revision"])
        }
    }

    @Test("the same id removed through two daemons at once: exactly one succeeds, the other is notFound; all converge")
    func concurrentRemoval() async throws {
        try await Fleet.with { fleet in
            async let first = await Result { try await fleet.call(host: 1, "remove", params: ["id": "r7"]) }
            async let second = await Result { try await fleet.call(host: 2, "remove", params: ["id": "r7"]) }
            let outcomes = await [first, second]
            let succeeded = outcomes.filter { if case .success = $0 { true } else { false } }
            #expect(succeeded.count == 1, "\(outcomes)")
            let refused = outcomes.compactMap { outcome -> String? in
                if case .failure(let error) = outcome { return "\(error)" }
                return nil
            }
            #expect(refused.count == 1 && refused[0].contains("no item with id"), "\(refused)")
            try await fleet.converged()
            #expect(try await !fleet.truth().ids.contains("r7"))
        }
    }

    @Test("a partitioned host's subscribers see stale; writes go on elsewhere; healed, it catches up, nothing lost or doubled")
    func partition() async throws {
        try await Fleet.with { fleet in
            let before = fleet.watched[2].value.count
            try await fleet.network.partition(host: 3)
            try await withTimeout(.seconds(60), "host 3 to mark its items stale") {
                await fleet.watched[2].wait { changes in changes.last.map { View($0).stale } ?? false }
            }
            _ = try await fleet.call(host: 1, "remove", params: ["id": "r1"])
            _ = try await fleet.call(host: 2, "remove", params: ["id": "r2"])
            try await fleet.cluster.psql("INSERT INTO items SELECT 'p' || g, json_build_object('id', 'p' || g) FROM generate_series(1, 50) g")
            try await fleet.cluster.psql("UPDATE items SET doc = json_build_object('id', id, 'n', 0) WHERE id LIKE 'r1%'")
            try await fleet.converged(hosts: [1, 2])
            let refused = await Result { try await fleet.call(host: 3, "remove", params: ["id": "r3"]) }
            guard case .failure(let error) = refused else {
                Issue.record("a removal through a partitioned daemon must fail")
                return
            }
            #expect("\(error)".contains("not connected") || "\(error)".contains("did not answer"), "\(error)")
            try await fleet.network.heal(host: 3)
            try await fleet.converged()
            let seen = fleet.watched[2].value[before...].map(View.init)
            let revisions = seen.compactMap(\.revision)
            #expect(revisions == revisions.sorted(), "host 3's revisions never go back")
            #expect(seen.contains { $0.stale }, "its subscribers saw stale while it was cut off")
        }
    }

    @Test("a daemon killed with SIGKILL while it catches up starts again and converges")
    func killDuringCatchUp() async throws {
        try await Fleet.with { fleet in
            try await fleet.network.partition(host: 3)
            try await withTimeout(.seconds(60), "host 3 to mark its items stale") {
                await fleet.watched[2].wait { changes in changes.last.map { View($0).stale } ?? false }
            }
            try await fleet.cluster.psql("INSERT INTO items SELECT 'k' || g, json_build_object('id', 'k' || g) FROM generate_series(1, 2000) g")
            try await fleet.network.heal(host: 3)
            let daemon = fleet.daemon(3)
            try await withTimeout(.seconds(60), "host 3 to reconnect") {
                await daemon.process.standardError.wait { $0.components(separatedBy: "connected to").count >= 3 }
            }
            try await daemon.kill()
            try await fleet.start(host: 3)
            let subscription = try await fleet.daemon(3).connect().subscribe()
            let expected = try await fleet.truth()
            try await withTimeout(.seconds(60), "the restarted host 3 to converge") {
                for await change in subscription where View(change) == expected { return }
            }
        }
    }

    @Test("PostgreSQL restarts: every daemon's subscribers see stale, then every daemon reconnects and converges")
    func databaseRestart() async throws {
        try await Fleet.with { fleet in
            try await fleet.cluster.stopServer()
            for host in 1...3 {
                try await withTimeout(.seconds(60), "host \(host) to mark its items stale") {
                    await fleet.watched[host - 1].wait { changes in changes.last.map { View($0).stale } ?? false }
                }
            }
            try await fleet.cluster.startServer()
            try await fleet.cluster.psql("DELETE FROM items WHERE id = 'r5'")
            try await fleet.converged()
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

extension ClosedRange where Bound == Int {
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for value in self { results.append(try await transform(value)) }
        return results
    }
}
