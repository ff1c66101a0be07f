import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// The DBA's way: `depotd --print-postgres-setup` prints the change feed's SQL, the owner runs it, and depotd then
/// serves the table as a user who may not create anything, with only the rights the README lists.
@Suite("depotd and a PostgreSQL it may not change", .enabled(if: PostgresCluster.unavailableReason == nil || PostgresCluster.mustRun))
struct PostgresSetupEndToEndTests {
    @Test("the printed setup, run by the owner, lets a user without DDL rights serve, remove and follow")
    func printedSetup() async throws {
        let cluster = try await PostgresCluster.start()
        do {
            try await cluster.psql(
                """
                CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL);
                INSERT INTO items VALUES ('a', '{"id":"a"}'), ('b', '{"id":"b"}');
                CREATE ROLE reader LOGIN;
                """)
            let source = "postgres://reader@/postgres?host=\(cluster.socketDirectory)"
            let printed = try await CommandResult.run(
                Binaries.depotd, ["--source", source, "--print-postgres-setup"], environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
            #expect(printed.status == 0, "\(printed.standardError)")
            #expect(printed.standardOutput.contains("CREATE TRIGGER depot_record_change"))
            try await cluster.psql(printed.standardOutput)
            try await cluster.psql(
                """
                GRANT SELECT, DELETE ON items TO reader;
                GRANT SELECT, UPDATE ON items_revision TO reader;
                GRANT SELECT, INSERT, DELETE ON items_changes TO reader;
                """)
            try await withDaemon(["--source", source]) { daemon in
                let connection = try await daemon.connect()
                let removed = try await connection.call("remove", params: ["id": "a"])
                #expect(removed["revision"] == .number(JSONNumber(1)))
                let subscription = try await daemon.connect().subscribe()
                try await cluster.psql(#"INSERT INTO items VALUES ('c', '{"id":"c"}')"#)
                let followed: View? = try await withTimeout(.seconds(30), "the insert to reach depotd") {
                    for await change in subscription where View(change).revision == 2 { return Optional(View(change)) }
                    return nil
                }
                #expect(followed?.ids == ["b", "c"])
                #expect(!daemon.process.standardError.value.contains("installing the change feed"), "the feed was already there")
            }
        } catch {
            Issue.record("\(error)\n\(cluster.serverLog.suffix(2000))")
        }
        await cluster.remove()
    }

    @Test("a password in the URI is refused before anything starts, and never repeated")
    func passwordRefused() async throws {
        let result = try await CommandResult.run(
            Binaries.depotd, ["--source", "postgres://depot:hunter2@db.example/items", "--print-postgres-setup"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": "/tmp"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("password"))
        #expect(result.standardError.contains("password file"))
        #expect(!result.standardError.contains("hunter2"))
    }
}
