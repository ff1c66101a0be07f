import DepotSources

/// How far a hot standby is behind its primary, as the standby tells it: a replica is read from only while within its
/// `max_lag`. The revision a read must reach (`ReplicaReads.required`) keeps depotd from going back in time; this
/// keeps a daemon that learns of changes by polling a replica (nothing else tells it what it must see) from following
/// one that has fallen behind, or stopped receiving, for as long as it stays so.
package enum ReplicaLag: Sendable, Equatable {
    /// Replaying: this long since the commit time of the newest transaction it has replayed, while more is waiting;
    /// zero when it has replayed all it received.
    case behind(Duration)
    /// How far behind it is cannot be told: its WAL receiver is not running (cut off from the primary, or not started
    /// yet), or it has WAL waiting and has replayed no transaction since it started.
    case unknown(String)
    /// Not in recovery: promoted, or not a standby at all; its table may differ from the primary's.
    case notStandby

    /// One row: in recovery, a WAL receiver running, and the lag in seconds (NULL when it cannot be told). Callable by
    /// any role: `pg_stat_wal_receiver` shows its row (its pid) to every role, its details only to the privileged.
    package static let sql = """
        SELECT pg_is_in_recovery(), EXISTS (SELECT FROM pg_stat_wal_receiver),
            CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0::float8
                ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END
        """

    /// The lag from the row of `sql`.
    package init(inRecovery: Bool, receiving: Bool, seconds: Double?) {
        if !inRecovery {
            self = .notStandby
        } else if !receiving {
            self = .unknown("it is not receiving from its primary (no WAL receiver)")
        } else if let seconds {
            self = .behind(.milliseconds(Int64((max(seconds, 0) * 1000).rounded())))
        } else {
            self = .unknown("it has WAL to replay and has replayed no transaction since it started")
        }
    }

    /// How far behind it is, when it can tell.
    package var behind: Duration? {
        if case .behind(let lag) = self { lag } else { nil }
    }

    /// Why a replica this far behind is not read from under `bound`; nil when it may be.
    package func excess(over bound: Duration) -> String? {
        switch self {
        case .behind(let lag) where lag <= bound: return nil
        case .behind(let lag):
            return "it is \(PostgresAddress.secondsText(lag)) s behind its primary, more than max_lag=\(PostgresAddress.secondsText(bound))"
        case .unknown(let why): return why
        case .notStandby: return "it is not a standby (promoted?), so its table may differ from the primary's"
        }
    }
}
