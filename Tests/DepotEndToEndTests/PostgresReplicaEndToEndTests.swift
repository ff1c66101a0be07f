import DepotClient
import DepotJSON
import DepotTestSupport
import DepotWire
import Testing

/// depotd with `--postgres-replica` on a real hot standby: `stats` says where reads go, and a write is read back.
@Suite("depotd reading from a hot standby", .enabled(if: PostgresCluster.unavailableReason == nil || PostgresCluster.mustRun))
struct PostgresReplicaEndToEndTests {
    @Test("stats names the standby once it reads from it; a put is answered with the item, read back from the primary")
    func readsFromStandby() async throws {
        let cluster = try await PostgresCluster.start()
        var standby: PostgresCluster?
        do {
            try await cluster.psql(#"CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL); INSERT INTO items VALUES ('a', '{"id":"a"}');"#)
            let replica = try await PostgresCluster.startStandby(of: cluster)
            standby = replica
            let replicaURI = replica.sourceURI(parameters: "connect_timeout=5")
            try await withDaemon(["--source", cluster.sourceURI(), "--postgres-replica", replicaURI]) { daemon in
                let connection = try await daemon.connect()
                // Reads go to the standby once its link is up and it has replayed the feed the primary's link installed.
                let reading = try await withTimeout(.seconds(60), "reads to go to the standby") {
                    while true {
                        _ = try await connection.call("load")
                        let stats = try DepotStatistics(decoding: try await connection.call("stats"))
                        if stats.readsFrom?.contains(replica.socketDirectory) == true { return stats }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                }
                #expect(
                    reading.readLagSeconds.map { $0 >= 0 } == true, "how far behind the standby is: \(String(describing: reading.readLagSeconds))")
                let put = try await connection.call("put", params: ["id": "b", "item": ["id": "b", "n": 2]])
                #expect(put["state"]?["count"] == .number(JSONNumber(2)), "\(put)")
                let held = try await connection.call("get", params: ["id": "b"])
                #expect(held["n"] == .number(JSONNumber(2)), "\(held)")
            }
        } catch {
            Issue.record("\(error)\n\(cluster.serverLog.suffix(2000))")
        }
        await standby?.remove()
        await cluster.remove()
    }
}
