import DepotCore
import DepotSources
import DepotTestSupport
import Testing

@Suite("FileSource: a removal writes the file from the items the repository holds while they are the file's content")
struct FileSourceHeldItemsTests {
    static let items = """
        [
        {"id":"a","n":1},
        {"id":"b","n":2},
        {"id":"c","n":3}
        ]

        """

    /// The file's items as a load gives them, with their version.
    static func load(_ source: FileSource) async throws -> HeldItems {
        guard case .collection(let items, let idField, let version) = try await source.fetchItems(ifChangedSince: nil) else {
            throw SourceError(.invalidData, "expected a collection")
        }
        return HeldItems(items: items, version: version, idField: idField)
    }

    @Test("held items whose version is the file's digest: the list handed back is theirs less one, and the file is it")
    func fromHeld() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.items)
        let source = FileSource(path: path)
        var held = try await Self.load(source)
        for id in ["b", "a"] {
            let (remaining, version) = try remainingList(try await source.deleteItem(id: id, held: held))
            #expect(remaining.removedID(from: held.items) == id, "made from the held items, not from a parse")
            #expect(try await Self.load(source).items == remaining, "the file holds that list")
            held = HeldItems(items: remaining, version: version, idField: held.idField)
        }
    }

    @Test("held items that are no longer the file's content (edited behind the repository's back) are not written")
    func notFromStaleHeld() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.items)
        let source = FileSource(path: path)
        let held = try await Self.load(source)
        _ = directory.write("items.json", #"[{"id":"x"},{"id":"b"},{"id":"y"}]"#)
        let remaining = try remainingList(try await source.deleteItem(id: "b", held: held)).items
        #expect(remaining.items.map(\.id) == ["x", "y"], "the edit is kept")
        #expect(remaining.removedID(from: held.items) == nil)
    }

    @Test("held items whose ids were read from another member are not used")
    func otherIDField() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id":"a","n":1},{"id":"b","n":2}]"#)
        let source = FileSource(path: path)
        let loaded = try await Self.load(source)
        let byNumber = try ItemCollection(items: [Item(id: "1", json: Array(#"{"id":"a","n":1}"#.utf8))])
        let held = HeldItems(items: byNumber, version: loaded.version, idField: "n")
        let remaining = try remainingList(try await source.deleteItem(id: "a", held: held)).items
        #expect(remaining.items.map(\.id) == ["b"])
    }
}
