import DepotCore
import DepotPlatform
import DepotSources
import Logging
import PostgresNIO

/// Where a PostgreSQL source's reads go among its replicas (`ReplicaReads`, `ReplicaLag`): asked of each replica,
/// told to `stats`, and logged when it changes.
extension PostgresSource {
    /// How far `replica` is behind its primary, as it tells.
    func lag(of replica: PostgresLink) async throws -> ReplicaLag {
        let rows = try await replica.withConnection("ask \(replica.address) how far behind it is") { [logger] connection in
            try await connection.query(PostgresQuery(unsafeSQL: ReplicaLag.sql), logger: logger).collect()
        }
        guard let row = rows.first else { throw SourceError(.unavailable, "\(replica.address) did not say how far behind it is") }
        let (inRecovery, receiving, seconds) = try row.decode((Bool, Bool, Double?).self)
        return ReplicaLag(inRecovery: inRecovery, receiving: receiving, seconds: seconds)
    }

    /// Where reads go now; the first read from elsewhere is logged.
    package var reading: String {
        replicaReads.withLock { $0.reader ?? link.address.description }
    }

    /// Where reads go, for `stats`: nil without replicas.
    package var readsFrom: String? {
        replicas.isEmpty ? nil : reading
    }

    /// How far behind its primary the replica read last was, for `stats`: nil after a read from the primary.
    package var readLag: Duration? {
        replicaReads.withLock { $0.lag }
    }

    /// Records where a read went, `lag` behind the primary (a replica's); a change of reader is logged, with why a
    /// replica was passed over.
    func noteReader(_ reader: String, lag: Duration? = nil, because why: String? = nil) {
        guard !replicas.isEmpty, replicaReads.withLock({ $0.read(from: reader, lag: lag) }) else { return }
        logger.notice("reading \(link.sql.table) from \(reader)\(why.map { " (\($0))" } ?? "")")
    }

    /// Raises what a replica must have replayed before depotd reads from it: a wake-up's position (the primary's log
    /// reached it).
    package func require(_ revision: Int64) {
        replicaReads.withLock { $0.require(revision) }
    }
}
