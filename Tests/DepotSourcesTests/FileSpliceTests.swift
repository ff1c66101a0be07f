import DepotCore
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Testing

@testable import DepotSources

/// A file source's writes change the file in place: the changed items where they stood, every other byte as it was,
/// new items in the file's own layout — for the layouts people's tools write.
@Suite("FileSource writes: in place, in the file's own layout")
struct FileSpliceTests {
    /// How a tool lays out a list of items.
    enum Layout: String, CaseIterable, Sendable {
        /// `json.dumps(items, separators=(",", ":"))`
        case compact
        /// depotd's own, and many a script's: one compact item per line.
        case linePerItem
        /// Python's `json.dump(items)`: one line, `", "` and `": "`.
        case pythonDefault
        /// `jq .`, `JSON.stringify(items, null, 2)`, `json.dump(items, indent=2)`
        case indented2
        /// An editor set to tabs.
        case tabs

        func text(_ items: [JSONValue]) -> String {
            switch self {
            case .compact: return "[" + items.map(\.jsonText).joined(separator: ",") + "]"
            case .linePerItem: return "[\n" + items.map(\.jsonText).joined(separator: ",\n") + "\n]\n"
            case .pythonDefault: return "[" + items.map { Self.inline($0) }.joined(separator: ", ") + "]"
            case .indented2: return JSONValue.array(items).prettyPrinted(indent: 2) + "\n"
            case .tabs:
                // One tab a level: each line's leading spaces (one a level) made tabs.
                let lines = JSONValue.array(items).prettyPrinted(indent: 1).split(separator: "\n", omittingEmptySubsequences: false)
                return lines.map { (line: Substring) -> String in
                    let depth = line.prefix { $0 == " " }.count
                    return String(repeating: "\t", count: depth) + line.dropFirst(depth)
                }.joined(separator: "\n")
            }
        }

        /// One line with a space after each colon and comma, as Python's default separators give.
        static func inline(_ value: JSONValue) -> String {
            switch value {
            case .object(let object):
                return "{" + object.map { JSONValue.string($0.key).jsonText + ": " + inline($0.value) }.joined(separator: ", ") + "}"
            case .array(let elements):
                return "[" + elements.map(inline).joined(separator: ", ") + "]"
            default:
                return value.jsonText
            }
        }
    }

    static func items(_ count: Int) -> [JSONValue] {
        (1...count).map {
            ["id": .number(JSONNumber($0)), "name": .string("item \($0)"), "tags": ["a", "b"], "deep": ["n": .number(JSONNumber($0))]]
        }
    }

    /// A file source on `text`, loaded; what it holds, as the repository would hold it.
    static func loaded(_ text: String, in directory: TemporaryDirectory) async throws -> (FileSource, HeldItems, String) {
        let path = directory.write("items.json", text)
        let source = FileSource(path: path)
        guard case .collection(let items, _, let version) = try await source.fetchItems(ifChangedSince: nil) else {
            Issue.record("the file is not read as a collection")
            throw SourceError(.invalidData, "not a collection")
        }
        return (source, HeldItems(items: items, version: version, idField: "id"), path)
    }

    @Test("a changed item is replaced where it stands, laid out as its neighbours; nothing else moves", arguments: Layout.allCases)
    func replace(layout: Layout) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let before = layout.text(Self.items(3))
        let (source, held, path) = try await Self.loaded(before, in: directory)
        let changed: JSONValue = ["id": 2, "name": "two", "tags": ["x"], "deep": ["n": 20]]
        let changedItem = Item(id: "2", json: changed.jsonBytes)
        _ = try await source.write([SourceChange(.put(changedItem))], held: held)
        var expected = Self.items(3)
        expected[1] = changed
        #expect(TestFiles.text(path) == layout.text(expected), "\(layout): the file is as the tool would have written it")
    }

    @Test("a new item goes last in the file's own layout; a removed one takes its separator with it", arguments: Layout.allCases)
    func addAndRemove(layout: Layout) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (source, held, path) = try await Self.loaded(layout.text(Self.items(4)), in: directory)
        let added: JSONValue = ["id": 5, "name": "item 5", "tags": [], "deep": ["n": 5]]
        let result = try await source.write(
            [SourceChange(.remove(id: "1")), SourceChange(.remove(id: "3")), SourceChange(.put(Item(id: "5", json: added.jsonBytes)))], held: held)
        var expected = Self.items(4)
        expected.remove(at: 2)
        expected.remove(at: 0)
        expected.append(added)
        #expect(TestFiles.text(path) == layout.text(expected), "\(layout)")
        #expect(result.created == [false, false, true])
    }

    @Test("removing the last items, or all of them, leaves the layout whole; items added to an empty file go one per line")
    func edges() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (source, held, path) = try await Self.loaded(Layout.indented2.text(Self.items(3)), in: directory)
        guard case .remaining(let afterTail, let version) = try await source.write([SourceChange(.remove(id: "3"))], held: held).outcome else {
            Issue.record("no list")
            return
        }
        #expect(TestFiles.text(path) == Layout.indented2.text(Array(Self.items(3).prefix(2))))
        let rest = HeldItems(items: afterTail, version: version, idField: "id")
        guard
            case .remaining(let empty, let emptyVersion) = try await source.write(
                [SourceChange(.remove(id: "1")), SourceChange(.remove(id: "2"))], held: rest
            ).outcome
        else {
            Issue.record("no list")
            return
        }
        #expect(TestFiles.text(path) == "[]\n")
        _ = try await source.write(
            [
                SourceChange(.put(Item(id: "a", json: Array(#"{"id":"a"}"#.utf8)))),
                SourceChange(.put(Item(id: "b", json: Array(#"{"id":"b"}"#.utf8)))),
            ],
            held: HeldItems(items: empty, version: emptyVersion, idField: "id"))
        #expect(TestFiles.text(path) == "[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]\n")
    }

    @Test("random writes to files of every layout: the file parses to the items written, every untouched item's bytes as they were")
    func randomWrites() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var random = SplitMix64(seed: 3)
        for round in 0..<120 {
            let layout = Layout.allCases[Int.random(in: 0..<Layout.allCases.count, using: &random)]
            let count = Int.random(in: 0...8, using: &random)
            let before = count == 0 ? "[]" : layout.text(Self.items(count))
            let (source, loaded, path) = try await Self.loaded(before, in: directory)
            var held = loaded
            for _ in 0..<3 {
                let oldText = try #require(TestFiles.bytes(path))
                let oldLayout = try #require(FileScan.scan(oldText, idField: "id")?.layout)
                let writes: [ItemWrite] = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                    let id = "\(Int.random(in: 1...10, using: &random))"
                    return Bool.random(using: &random)
                        ? .remove(id: id) : .put(Item(id: id, json: Array(#"{"id":\#(id),"r":\#(Int.random(in: 0...99, using: &random))}"#.utf8)))
                }
                let expected = held.items.applying(writes, placement: .last)
                // A removal of an item not there is notFound: those are left out, as the items stand at each change.
                var present = Set(held.items.items.map(\.id))
                let changes = writes.compactMap { write -> SourceChange? in
                    if write.item == nil, !present.contains(write.id) { return nil }
                    if write.item == nil { present.remove(write.id) } else { present.insert(write.id) }
                    return SourceChange(write)
                }
                guard !changes.isEmpty else { continue }
                let result = try await source.write(changes, held: held)
                guard case .remaining(let items, let version) = result.outcome else {
                    Issue.record("no list")
                    return
                }
                let newText = try #require(TestFiles.bytes(path))
                let rescanned = try #require(FileScan.scan(newText, idField: "id"), "round \(round): the file is still a list of items")
                #expect(Array(rescanned.items.items) == Array(expected.items), "round \(round)")
                #expect(Array(items.items) == Array(expected.items))
                #expect(version?.digest == ContentDigest.of(newText))
                // Every item no write touched has the bytes it had, in the old file and in the new.
                let touched = Set(writes.map(\.id))
                for (index, item) in held.items.items.enumerated() where !touched.contains(item.id) {
                    let newIndex = try #require(rescanned.items.position(of: item.id))
                    #expect(
                        oldText[oldLayout.span(index)] == newText[rescanned.layout.span(newIndex)], "round \(round): item \(item.id) kept its bytes")
                }
                held = HeldItems(items: items, version: version, idField: "id")
            }
        }
    }

    @Test("the layout a write leaves is where the items stand in the file it wrote")
    func layoutAfterWrites() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (_, held, _) = try await Self.loaded(Layout.pythonDefault.text(Self.items(5)), in: directory)
        let text = Array(Layout.pythonDefault.text(Self.items(5)).utf8)
        let layout = try #require(FileScan.scan(text, idField: "id")?.layout)
        let splice = try #require(
            FileSplice(
                writing: [
                    .remove(id: "2"), .put(Item(id: "4", json: Array(#"{"id":4}"#.utf8))), .put(Item(id: "9", json: Array(#"{"id":9}"#.utf8))),
                ],
                to: held.items, layout: layout))
        var written: [UInt8] = []
        var position = 0
        for edit in splice.edits {
            written += text[position..<edit.range.lowerBound] + edit.text
            position = edit.range.upperBound
        }
        written += text[position...]
        #expect(splice.layout == FileScan.scan(written, idField: "id")?.layout)
    }
}
