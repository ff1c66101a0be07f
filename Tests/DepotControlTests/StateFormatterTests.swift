import DepotControl
import DepotJSON
import Testing

@Suite("StateFormatter.statusLine")
struct StatusLineTests {
    static func state(_ text: String) -> JSONValue {
        try! JSONParser.parse(text)
    }

    @Test(
        "one line per status",
        arguments: [
            (#"{"seq":0,"status":"idle"}"#, "idle · seq 0"),
            (#"{"seq":2,"status":"loading"}"#, "loading · seq 2"),
            (#"{"seq":3,"status":"success","items":[{"id":1}]}"#, "success · 1 item · seq 3"),
            (#"{"seq":3,"status":"success","items":[{"id":1},{"id":2},{"id":3}]}"#, "success · 3 items · seq 3"),
            (#"{"seq":1,"status":"success","items":[]}"#, "success · 0 items · seq 1"),
            (
                #"{"seq":3,"status":"success","origin":"source","fetchedAt":"2026-11-21T20:41:49.123Z","stale":false,"items":[{"id":1}]}"#,
                "success · 1 item · source, fetched 2026-11-21T20:41:49.123Z · seq 3"
            ),
            (
                #"{"seq":3,"status":"success","origin":"cache","fetchedAt":"2026-11-20T08:00:00.000Z","stale":true,"items":[]}"#,
                "success · 0 items · cache, fetched 2026-11-20T08:00:00.000Z, stale · seq 3"
            ),
            (
                #"{"seq":4,"status":"failure","error":{"code":-32001,"message":"cannot read /x/items.json: No such file or directory"}}"#,
                "failure · seq 4 · cannot read /x/items.json: No such file or directory (-32001)"
            ),
            (#"{"seq":5,"status":"failure","error":{"message":"no code"}}"#, "failure · seq 5 · no code"),
            (#"{"seq":6,"status":"failure","error":{"code":-32001}}"#, "failure · seq 6 · (no message) (-32001)"),
            (#"{"seq":6,"status":"failure","error":{"code":-32001,"message":42}}"#, "failure · seq 6 · (no message) (-32001)"),
            (#"{"seq":6,"status":"failure","error":{}}"#, "failure · seq 6 · (no message)"),
            (#"{"seq":6,"status":"failure","error":null}"#, "failure · seq 6 · (no message)"),
            (#"{"seq":6,"status":"failure","error":[1,2]}"#, "failure · seq 6 · (no message)"),
            (#"{"seq":6,"status":"failure","error":"disk on fire"}"#, "failure · seq 6 · disk on fire"),
            (#"{"seq":6,"status":"failure","error":"say \"hi\""}"#, "failure · seq 6 · say \"hi\""),
            (#"{"seq":6,"status":"failure"}"#, "failure · seq 6"),
            (#"{"seq":12345678901234567890,"status":"idle"}"#, "idle · seq 12345678901234567890"),
            (#"{"status":"loading"}"#, "loading"),
            (#"{"seq":7}"#, "unknown · seq 7"),
            ("null", "unknown"),
        ])
    func statusLine(text: String, line: String) {
        #expect(StateFormatter.statusLine(Self.state(text)) == line)
    }

    @Test("skipped states are reported last, and only when there were some")
    func skipped() {
        let success = Self.state(#"{"seq":9,"status":"success","items":[{"id":1},{"id":2}]}"#)
        #expect(StateFormatter.statusLine(success, skipped: 3) == "success · 2 items · seq 9 · skipped 3")
        #expect(StateFormatter.statusLine(success, skipped: 1) == "success · 2 items · seq 9 · skipped 1")
        #expect(StateFormatter.statusLine(success, skipped: 0) == "success · 2 items · seq 9")
        let failure = Self.state(#"{"seq":10,"status":"failure","error":{"code":-32002,"message":"refused"}}"#)
        #expect(StateFormatter.statusLine(failure, skipped: 2) == "failure · seq 10 · refused (-32002) · skipped 2")
        #expect(StateFormatter.statusLine(Self.state(#"{"seq":1,"status":"idle"}"#), skipped: 5) == "idle · seq 1 · skipped 5")
    }
}

@Suite("StateFormatter.table")
struct TableTests {
    static func items(_ text: String) -> [JSONValue] {
        try! JSONParser.parse(text).arrayValue!
    }

    @Test("exact output: uppercased header, id first, extra columns in order of first appearance, aligned")
    func exactTable() {
        let items = Self.items(
            """
            [{"id": 1, "name": "Bulbasaur", "types": ["grass", "poison"]},
             {"id": 25, "name": "Pikachu", "types": ["electric"], "stats": {"hp": 35}, "shiny": true},
             {"id": 151, "name": "Mew", "types": ["psychic"], "shiny": false}]
            """)

        let table = StateFormatter.table(items, idField: "id")

        #expect(
            lines(table) == [
                "ID   NAME       TYPES          STATS",
                "1    Bulbasaur  grass, poison",
                "25   Pikachu    electric       {…}",
                "151  Mew        psychic",
            ])
    }

    @Test("at most three extra columns by default, and extraColumns chooses how many")
    func extraColumns() {
        let items = Self.items(#"[{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}]"#)
        #expect(StateFormatter.table(items, idField: "id") == "ID  A  B  C\n1   1  2  3")
        #expect(StateFormatter.table(items, idField: "id", extraColumns: 1) == "ID  A\n1   1")
        #expect(StateFormatter.table(items, idField: "id", extraColumns: 0) == "ID\n1")
        #expect(StateFormatter.table(items, idField: "id", extraColumns: 5) == "ID  A  B  C  D  E\n1   1  2  3  4  5")
    }

    @Test("columns come from the items in order of first appearance, across items")
    func columnOrderAcrossItems() {
        let items = Self.items(#"[{"b": "x", "id": 1}, {"id": 2, "a": "y", "b": "z"}, {"c": "w", "id": 3, "d": "v"}]"#)
        #expect(
            lines(StateFormatter.table(items, idField: "id")) == [
                "ID  B  A  C",
                "1   x",
                "2   z  y",
                "3         w",
            ])
    }

    @Test(
        "cells: scalars as JSON, strings bare, arrays of scalars joined, objects abbreviated",
        arguments: [
            (#""text""#, "text"),
            ("1.50", "1.50"),
            ("12345678901234567890", "12345678901234567890"),
            ("-2e10", "-2e10"),
            ("true", "true"),
            ("false", "false"),
            ("null", "null"),
            (#"["grass", "poison"]"#, "grass, poison"),
            (#"[1, 2.5, true, null, "x"]"#, "1, 2.5, true, null, x"),
            ("[]", ""),
            (#"{"hp": 35}"#, "{…}"),
            ("{}", "{}"),
            (#"[{"a": 1}, {}]"#, "{…}, {}"),
            (#"[[1, 2], [3]]"#, "1, 2, 3"),
            (#""line one\nline two\r\nthree""#, "line one line two three"),
            (#""caf\u00e9 \"q\"""#, "café \"q\""),
        ])
    func cell(json: String, text: String) throws {
        let value = try JSONParser.parse(json)
        let row = "1   \(text)"
        #expect(StateFormatter.table([["id": 1, "v": value]], idField: "id") == "ID  V\n" + (text.isEmpty ? "1" : row))
    }

    @Test("long cells are cut to the cell width with an ellipsis")
    func longCells() {
        let exactly32 = String(repeating: "x", count: 32)
        let longer = String(repeating: "y", count: 33)
        let items: [JSONValue] = [["id": 1, "a": .string(exactly32)], ["id": 2, "a": .string(longer)]]
        #expect(
            StateFormatter.table(items, idField: "id") == """
                ID  A
                1   \(exactly32)
                2   \(String(repeating: "y", count: 31))…
                """)
        #expect(
            StateFormatter.table([["id": "abcdefgh", "n": "Bulbasaur"]], idField: "id", cellWidth: 5) == """
                ID     N
                abcd…  Bulb…
                """)
        #expect(StateFormatter.table([["id": "ab", "n": "äöüßé"]], idField: "id", cellWidth: 4) == "ID  N\nab  äöü…")
        #expect(StateFormatter.table([["id": 12, "tags": ["alpha", "beta"]]], idField: "id", cellWidth: 8) == "ID  TAGS\n12  alpha, …")
    }

    @Test("missing members are empty cells, and an item without the id field has an empty id")
    func missingMembers() {
        let items = Self.items(#"[{"id": "a", "name": "A"}, {"name": "no id", "x": 1}, {"id": "c"}]"#)
        #expect(
            lines(StateFormatter.table(items, idField: "id")) == [
                "ID  NAME   X",
                "a   A",
                "    no id  1",
                "c",
            ])
    }

    @Test("a custom id field comes first with its own header; an \"id\" member is just another column")
    func customIDField() {
        let items = Self.items(#"[{"id": 7, "name": "Widget", "sku": "W-1"}, {"id": 8, "name": "Gadget", "sku": "G-22"}]"#)
        #expect(
            StateFormatter.table(items, idField: "sku") == """
                SKU   ID  NAME
                W-1   7   Widget
                G-22  8   Gadget
                """)
        #expect(StateFormatter.table(items, idField: "sku", extraColumns: 1) == "SKU   ID\nW-1   7\nG-22  8")
    }

    @Test("no items: just the header")
    func noItems() {
        #expect(StateFormatter.table([], idField: "id") == "ID")
        #expect(StateFormatter.table([], idField: "sku") == "SKU")
    }

    @Test("a cell width below 1 counts as 1, and a negative column count as 0")
    func degenerateParameters() {
        let items: [JSONValue] = [["id": 1, "name": "Bulbasaur"]]
        #expect(StateFormatter.table(items, idField: "id", cellWidth: 0) == "ID  NAME\n1   …")
        #expect(StateFormatter.table(items, idField: "id", cellWidth: -5) == StateFormatter.table(items, idField: "id", cellWidth: 1))
        #expect(StateFormatter.table(items, idField: "id", extraColumns: -1) == "ID\n1")
        #expect(StateFormatter.table(items, idField: "id", extraColumns: Int.min) == "ID\n1")
    }

    @Test("no row ends in spaces, whichever cells are empty")
    func noTrailingSpaces() {
        let items = Self.items(#"[{"id": "long-id", "a": "x"}, {"id": 2}, {"id": 3, "a": "", "b": "y"}, {"id": 4, "b": ""}]"#)
        let table = StateFormatter.table(items, idField: "id")
        #expect(
            lines(table) == [
                "ID       A  B",
                "long-id  x",
                "2",
                "3           y",
                "4",
            ])
        #expect(!lines(table).contains { $0.hasSuffix(" ") })
    }
}

/// The table's lines, trailing spaces kept, so expected tables can be written one line per element.
private func lines(_ table: String) -> [String] {
    table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}
