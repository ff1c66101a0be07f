import DepotTestSupport
import Testing

/// The tests' own PostgreSQL (the harness the postgres:// source's tests stand on): made in a temporary directory,
/// started and stopped as the postgres user, its data kept across a restart, gone once removed.
@Suite("PostgresCluster: a PostgreSQL of the tests' own")
struct PostgresClusterTests {
    @Test(
        "initdb, start, SQL through its socket, a restart that keeps the data, and removal",
        .enabled(if: PostgresCluster.unavailableReason == nil || PostgresCluster.mustRun))
    func lifecycle() async throws {
        let cluster = try await PostgresCluster.start()
        do {
            try await cluster.psql("CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL); INSERT INTO items VALUES ('1', '{\"id\":\"1\"}');")
            #expect(try await cluster.psql("SELECT doc FROM items") == "{\"id\":\"1\"}\n")
            #expect(TestFiles.mode(cluster.socketPath) != nil)
            try await cluster.stopServer()
            #expect(TestFiles.mode(cluster.socketPath) == nil, "the server is down")
            await #expect(throws: PostgresClusterError.self) { try await cluster.psql("SELECT 1") }
            try await cluster.startServer()
            #expect(try await cluster.psql("SELECT count(*) FROM items") == "1\n")
        } catch {
            Issue.record("\(error)\n\(cluster.serverLog.suffix(2000))")
        }
        let directory = cluster.directory.path
        await cluster.remove()
        #expect(TestFiles.mode(directory) == nil)
    }
}
