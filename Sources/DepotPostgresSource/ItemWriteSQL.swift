import DepotSources

/// The statements a write to a PostgreSQL table runs, one per change, with the change's precondition in the statement
/// itself — a row that is not the one the change was made from is not touched, and the statement says so by
/// returning no row — so that no other writer's change can come between the check and the write, whatever daemon or
/// program made it.
///
/// An item is compared as `jsonb` (the doc column, or the whole row), so an item depotd holds matches the row it was
/// read from whatever the column's type and however its text is spaced; it is written through
/// `json_populate_record`, which gives each column the value in its own type. The id is compared in the id column's
/// own type, so its index serves.
struct ItemWriteSQL: Sendable {
    let address: PostgresAddress
    /// The table's columns, for a table whose whole row is the item (no doc column); empty otherwise.
    let columns: [String]

    private var table: String { address.quotedTable }
    private var idColumn: String { PostgresAddress.quoted(address.idColumn) }

    /// `i`'s id equals parameter `$n`, given as text, read in the id column's own type.
    private func idEquals(_ n: Int) -> String {
        "i.\(idColumn) = (json_populate_record(NULL::\(table), json_build_object(\(Self.literal(address.idColumn)), $\(n)::text))).\(idColumn)"
    }

    /// The row as jsonb, for comparing with an item.
    private var rowDocument: String {
        address.docColumn.map { "i.\(PostgresAddress.quoted($0))::jsonb" } ?? "to_jsonb(i)"
    }

    /// The columns written (quoted; the id first), and the row `json_populate_record` makes of the id $1 and the item
    /// $2, as `r`.
    private var written: (columns: [String], source: String) {
        if let doc = address.docColumn {
            return (
                [idColumn, PostgresAddress.quoted(doc)],
                "json_populate_record(NULL::\(table), json_build_object(\(Self.literal(address.idColumn)), $1::text, \(Self.literal(doc)), $2::json)) r"
            )
        }
        let others = columns.filter { $0 != address.idColumn }.map(PostgresAddress.quoted)
        return ([idColumn] + others, "json_populate_record(NULL::\(table), $2::json) r")
    }

    /// Creates or replaces the item $2 with id $1; one row back: whether it was created.
    var upsert: String {
        let (columns, source) = written
        let others = columns.dropFirst()
        return """
            INSERT INTO \(table) AS i (\(columns.joined(separator: ", "))) SELECT \(columns.map { "r.\($0)" }.joined(separator: ", ")) FROM \(source)
            ON CONFLICT (\(idColumn)) DO UPDATE SET (\(others.joined(separator: ", "))) = ROW(\(others.map { "EXCLUDED.\($0)" }.joined(separator: ", ")))
            RETURNING (xmax = 0)
            """
    }

    /// Creates the item $2 with id $1 unless there is one; a row back when it did.
    var insert: String {
        let (columns, source) = written
        return """
            INSERT INTO \(table) AS i (\(columns.joined(separator: ", "))) SELECT \(columns.map { "r.\($0)" }.joined(separator: ", ")) FROM \(source)
            ON CONFLICT (\(idColumn)) DO NOTHING RETURNING true
            """
    }

    /// Replaces the item with id $1 by $2 while it is $3; a row back when it did.
    var replace: String {
        let (columns, source) = written
        let others = columns.dropFirst()
        return """
            UPDATE \(table) i SET (\(others.joined(separator: ", "))) = ROW(\(others.map { "r.\($0)" }.joined(separator: ", "))) FROM \(source)
            WHERE \(idEquals(1)) AND \(rowDocument) = $3::jsonb RETURNING false
            """
    }

    /// Deletes the item with id $1; a row back when there was one.
    var delete: String {
        "DELETE FROM \(table) i WHERE \(idEquals(1)) RETURNING 1"
    }

    /// Deletes the item with id $1 while it is $2; a row back when it did.
    var deleteMatching: String {
        "DELETE FROM \(table) i WHERE \(idEquals(1)) AND \(rowDocument) = $2::jsonb RETURNING 1"
    }

    /// The item with id $1 as JSON text, as a load reads it: no row when there is none.
    var current: String {
        "SELECT \(address.docColumn.map { "i.\(PostgresAddress.quoted($0))::text" } ?? "to_json(i)::text") FROM \(table) i WHERE \(idEquals(1))"
    }

    /// The columns of the table, in order, those PostgreSQL generates left out: $1 is the table's name as `regclass`
    /// reads it.
    static let columnsOfTable = """
        SELECT attname::text FROM pg_attribute
        WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
        ORDER BY attnum
        """

    /// A column's name as a string literal (a plain identifier: no quote to double).
    private static func literal(_ name: String) -> String {
        "'" + name + "'"
    }
}
