package import DepotJSON
import DepotOperators
import DepotWire

/// Turns states and items into depotctl's human output: a status line per state, and a table of items.
package enum StateFormatter {
    /// `success · 151 items · source, fetched 2026-11-21T20:41:49.123Z · seq 3`, `loading · seq 2`,
    /// `failure · seq 4 · could not read … (-32001)`; a cached list that stands in for a failed source ends its
    /// provenance with `, stale`.
    ///
    /// It reads the State leniently (a member missing or of another type is left out of the line, an unknown
    /// status is shown as it is), so whatever a depotd of another version sends is still shown.
    package static func statusLine(_ state: JSONValue, skipped: Int = 0) -> String {
        let status = state[StateMember.status]?.stringValue ?? "unknown"
        var parts = [status]
        if status == StateStatus.success.rawValue {
            // An answer to load or remove gives the count without the items.
            let count = state[StateMember.items]?.arrayValue?.count ?? state[StateMember.count]?.numberValue.flatMap { Int($0.literal) } ?? 0
            parts.append(count == 1 ? "1 item" : "\(count) items")
            if let origin = state[StateMember.origin]?.stringValue {
                var provenance = origin
                if let fetchedAt = state[StateMember.fetchedAt]?.stringValue {
                    provenance += ", fetched \(fetchedAt)"
                }
                if state[StateMember.stale] == true {
                    provenance += ", stale"
                }
                parts.append(provenance)
            }
        }
        if let seq = state[StateMember.seq]?.numberValue {
            parts.append("seq \(seq.literal)")
        }
        if let reason = state[StateMember.staleReason]?.stringValue {
            parts.append("stale because \(reason)")
        }
        if status == StateStatus.failure.rawValue, let error = state[StateMember.error] {
            parts.append(failureText(error))
        }
        if skipped > 0 {
            parts.append("skipped \(skipped)")
        }
        return parts.joined(separator: " · ")
    }

    /// A failure's error as text: its message and code (`refused (-32002)`); a bare string error as it is;
    /// `(no message)` when there is no string message, rather than raw JSON.
    static func failureText(_ error: JSONValue) -> String {
        if let text = error.stringValue {
            return text
        }
        let message = error[StateMember.Error.message]?.stringValue ?? "(no message)"
        let code = error[StateMember.Error.code]?.numberValue.map { " (\($0.literal))" } ?? ""
        return message + code
    }

    /// A table of `items`: the id column first, then up to `extraColumns` (at least 0) other members taken
    /// from the items' keys in order of first appearance. Cells are cut to `cellWidth` characters (at least 1).
    /// Rows carry no trailing spaces.
    package static func table(_ items: [JSONValue], idField: String, extraColumns: Int = 3, cellWidth: Int = 32) -> String {
        let extraColumns = max(extraColumns, 0)
        let cellWidth = max(cellWidth, 1)
        var columns: [String] = []
        for item in items {
            for key in item.objectValue?.keys ?? [] where key != idField && !columns.contains(key) {
                columns.append(key)
            }
            if columns.count >= extraColumns { break }
        }
        columns = [idField] + columns.prefix(extraColumns)
        let rows = items.map { item in
            columns.map { column in cell(item[column], width: cellWidth) }
        }
        let header = columns.map { $0.uppercased() }
        let widths = columns.indices.map { index in
            ([header[index]] + rows.map { $0[index] }).map(\.count).max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            var line = cells.enumerated().map { index, text in
                text + String(repeating: " ", count: widths[index] - text.count)
            }.joined(separator: "  ")
            while line.last == " " {
                line.removeLast()
            }
            return line
        }
        return ([render(header)] + rows.map(render)).joined(separator: "\n")
    }

    /// A member as one short cell: strings bare, arrays of scalars joined, objects abbreviated.
    static func cell(_ value: JSONValue?, width: Int) -> String {
        let text: String
        switch value {
        case nil: text = ""
        case .string(let string)?: text = string
        case .array(let elements)?: text = elements.map { cell($0, width: width) }.joined(separator: ", ")
        case .object(let object)?: text = object.isEmpty ? "{}" : "{…}"
        case let other?: text = other.jsonText
        }
        let singleLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return singleLine.count > width ? String(singleLine.prefix(width - 1)) + "…" : singleLine
    }
}
