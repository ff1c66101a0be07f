package import DepotSources

/// The SQL of a table's change feed, and the queries depotd runs against it, for one configured table.
///
/// The feed: every insert, update and delete on the table (and a truncate) appends a row to `TABLE_changes` with
/// the next `position`, taken from the one-row counter `TABLE_revision`; a statement-level trigger then NOTIFYs
/// the channel with the newest position (a wake-up only: never the data, so the 8 kB payload limit never matters).
///
/// Positions follow commit order and have no gaps: the counter row stays locked by the writing transaction until it
/// commits, so writers of the table take their turn, and a position rolled back is given again. A reader that has
/// applied every change up to N therefore asks for `position > N` and misses nothing, and a snapshot that shows
/// position N shows exactly the changes up to N: the revision is the same for the same data in every daemon.
/// The price: writes to the table are serialised, which NOTIFY's own commit-time lock does anyway.
package struct ChangeLogSQL: Sendable {
    /// Bumped when the installed objects change: `setup` replaces older ones, and depotd runs it only when the
    /// installed function carries another version.
    package static let version = "depot change feed 2"

    package let address: PostgresAddress

    package init(address: PostgresAddress) {
        self.address = address
    }

    private var schemaPrefix: String { address.schema.map { PostgresAddress.quoted($0) + "." } ?? "" }
    private func name(_ suffix: String) -> String { schemaPrefix + PostgresAddress.quoted(address.table + suffix) }

    /// The items table, quoted.
    package var table: String { address.quotedTable }
    /// `TABLE_changes`: position, id (NULL for a truncate: everything changed), recorded_at.
    package var log: String { name("_changes") }
    /// `TABLE_revision`: one row, the last position given.
    package var counter: String { name("_revision") }
    /// `TABLE_writes`: the id of each write a `feed=poll` daemon made, and of each it fenced off (`fence`).
    package var writes: String { name("_writes") }
    /// The trigger function that records a change.
    package var recordFunction: String { name("_record_change") }
    /// The trigger function that wakes the listeners.
    package var notifyFunction: String { name("_wake_listeners") }
    /// The channel the wake-ups go to: `depot` and the table, as one identifier.
    package var channel: String {
        // Identifiers are ASCII here (PostgresAddress allows no other), so 63 bytes are 63 characters.
        String(("depot_" + (address.schema.map { $0 + "_" } ?? "") + address.table).prefix(63))
    }

    private var id: String { "i." + PostgresAddress.quoted(address.idColumn) }
    /// The item as JSON text: the doc column, or the whole row.
    private var document: String {
        address.docColumn.map { "i." + PostgresAddress.quoted($0) + "::text" } ?? "to_json(i)::text"
    }

    /// Creates (or brings up to date) the log, the counter, the functions and the triggers, serialised with other
    /// daemons doing the same by an advisory lock; run in one transaction (`BEGIN` first, `COMMIT` last), one
    /// statement at a time (postgres-nio's extended protocol takes one per query). Idempotent.
    package var setupStatements: [String] {
        let column = PostgresAddress.quoted(address.idColumn)
        let literalChannel = "'" + channel + "'"
        return [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(hashtext('depot change feed \(table)'))",
            """
            CREATE TABLE IF NOT EXISTS \(counter) (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                position bigint NOT NULL
            )
            """,
            "INSERT INTO \(counter) (position) VALUES (0) ON CONFLICT DO NOTHING",
            """
            CREATE TABLE IF NOT EXISTS \(log) (
                position bigint PRIMARY KEY,
                id text,
                recorded_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE TABLE IF NOT EXISTS \(writes) (
                id uuid PRIMARY KEY,
                recorded_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            """
            CREATE OR REPLACE FUNCTION \(recordFunction)() RETURNS trigger LANGUAGE plpgsql AS $depot$
            DECLARE
                next bigint;
            BEGIN
                UPDATE \(counter) SET position = position + 1 RETURNING position INTO next;
                IF TG_OP = 'TRUNCATE' THEN
                    INSERT INTO \(log) (position, id) VALUES (next, NULL);
                    PERFORM pg_notify(\(literalChannel), next::text);
                ELSIF TG_OP = 'DELETE' THEN
                    INSERT INTO \(log) (position, id) VALUES (next, OLD.\(column)::text);
                ELSE
                    INSERT INTO \(log) (position, id) VALUES (next, NEW.\(column)::text);
                    IF TG_OP = 'UPDATE' AND OLD.\(column) IS DISTINCT FROM NEW.\(column) THEN
                        UPDATE \(counter) SET position = position + 1 RETURNING position INTO next;
                        INSERT INTO \(log) (position, id) VALUES (next, OLD.\(column)::text);
                    END IF;
                END IF;
                RETURN NULL;
            END
            $depot$
            """,
            """
            CREATE OR REPLACE FUNCTION \(notifyFunction)() RETURNS trigger LANGUAGE plpgsql AS $depot$
            BEGIN
                PERFORM pg_notify(\(literalChannel), (SELECT position FROM \(counter))::text);
                RETURN NULL;
            END
            $depot$
            """,
            "DROP TRIGGER IF EXISTS depot_record_change ON \(table)",
            """
            CREATE TRIGGER depot_record_change AFTER INSERT OR UPDATE OR DELETE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(recordFunction)()
            """,
            "DROP TRIGGER IF EXISTS depot_record_truncate ON \(table)",
            """
            CREATE TRIGGER depot_record_truncate AFTER TRUNCATE ON \(table)
                FOR EACH STATEMENT EXECUTE FUNCTION \(recordFunction)()
            """,
            "DROP TRIGGER IF EXISTS depot_wake_listeners ON \(table)",
            """
            CREATE TRIGGER depot_wake_listeners AFTER INSERT OR UPDATE OR DELETE ON \(table)
                FOR EACH STATEMENT EXECUTE FUNCTION \(notifyFunction)()
            """,
            // Last: depotd takes the feed as installed only once this is.
            "COMMENT ON FUNCTION \(recordFunction)() IS '\(Self.version)'",
            "COMMIT",
        ]
    }

    /// The setup as one script, for `depotd --print-postgres-setup` and a DBA's psql.
    package var setup: String {
        "-- The change feed of \(table) for depotd (\(Self.version)). Safe to run again.\n"
            + setupStatements.map { $0 + ";\n" }.joined()
    }

    /// One row: the version comment of the installed record function (NULL when there is none), and whether the
    /// items table exists.
    package var installedVersion: String {
        """
        SELECT obj_description(to_regprocedure('\(recordFunction)()'), 'pg_proc'), to_regclass('\(table)') IS NOT NULL
        """
    }

    /// Every item in id order with the revision it is at, in one statement (one snapshot): a first row with the
    /// revision and NULLs when the table is empty. Columns: revision, id, present, document.
    package var load: String {
        """
        SELECT r.position, \(id)::text, \(id) IS NOT NULL, \(document)
        FROM \(counter) r LEFT JOIN \(table) i ON true
        ORDER BY \(id)::text COLLATE "C"
        """
    }

    /// The changes after position $1 (at most $2 of them), each with the row as it is now, and the newest position,
    /// in one statement: a first row with the newest position and NULLs when there are none. Columns: newest,
    /// position, id, present, document. Each row is looked up by its key on its own (the LIMIT keeps the planner
    /// from turning the lookups into a join, which, planned for $2 changes, scanned the whole table for one).
    package var changes: String {
        """
        SELECT r.position, l.position, l.id, c.document IS NOT NULL, c.document
        FROM \(counter) r
        LEFT JOIN LATERAL (SELECT position, id FROM \(log) WHERE position > $1 ORDER BY position LIMIT $2) l ON true
        LEFT JOIN LATERAL (SELECT \(document) AS document FROM \(table) i WHERE \(id)::text = l.id LIMIT 1) c ON true
        ORDER BY l.position
        """
    }

    /// The newest position given: after a write commits, at least the write's.
    package var revision: String {
        "SELECT position FROM \(counter)"
    }

    /// Drops the changes older than $1 seconds.
    package var prune: String {
        "DELETE FROM \(log) WHERE recorded_at < now() - make_interval(secs => $1)"
    }

    /// Drops the write ids older than $1 seconds: a write is settled long before.
    package var pruneWrites: String {
        "DELETE FROM \(writes) WHERE recorded_at < now() - make_interval(secs => $1)"
    }

    /// `statement`, made only if the write id $`parameter` is not in `writes` yet — it records it — so that once
    /// `fence` recorded the id first, the statement fails whenever it reaches the server (unique violation).
    package func fenced(_ statement: String, parameter: Int) -> String {
        "WITH depot_fence AS (INSERT INTO \(writes) (id) VALUES ($\(parameter)::uuid)) " + statement
    }

    /// Records the write id $1, as a write's transaction does: a batch's first statement.
    package var recordWrite: String {
        "INSERT INTO \(writes) (id) VALUES ($1::uuid)"
    }

    /// Records the write id $1 unless the write did: from then on the write cannot be made, whenever it reaches the
    /// server. Settles a write whose connection was lost as it committed, through any pooler.
    package var fence: String {
        "INSERT INTO \(writes) (id) VALUES ($1::uuid) ON CONFLICT DO NOTHING"
    }
}
