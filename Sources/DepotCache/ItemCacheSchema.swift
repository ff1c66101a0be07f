import GRDB

/// The cache's tables, and how a file written by an older depotd is brought up to date.
///
/// GRDB records every applied migration in the file (table `grdb_migrations`); opening runs the ones it
/// lacks, each in a transaction. A released migration is never edited: a schema change is a new one
/// appended here ("v2", …). A file with a migration this list does not know comes from a newer depotd.
enum ItemCacheSchema {
    /// The migrations of this depotd, oldest first.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // At most one row: the list's metadata. No row means no cached list (an empty list has a row).
            try db.execute(
                sql: """
                    CREATE TABLE collection (
                        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                        source TEXT NOT NULL,
                        idField TEXT NOT NULL,
                        fetchedAtMilliseconds INTEGER NOT NULL,
                        etag TEXT,
                        lastModified TEXT
                    )
                    """)
            // One row per item. `position` is the rowid, so reading in order is a plain scan of the table;
            // a removal leaves a gap rather than renumbering. The UNIQUE index makes removal by id a lookup.
            try db.execute(
                sql: """
                    CREATE TABLE item (
                        position INTEGER PRIMARY KEY,
                        id TEXT NOT NULL UNIQUE,
                        json BLOB NOT NULL
                    )
                    """)
        }
        migrator.registerMigration("v2") { db in
            // The change-log position the list reflects (a PostgreSQL source), so a restart asks only for what
            // changed since.
            try db.execute(sql: "ALTER TABLE collection ADD COLUMN revision INTEGER")
        }
        migrator.registerMigration("v3") { db in
            // The digest of the bytes the list was read from (a file, an HTTP body without validators), so a restart
            // that finds the same bytes need not parse them.
            try db.execute(sql: "ALTER TABLE collection ADD COLUMN digest TEXT")
        }
        return migrator
    }()
}
