import DepotCore
import DepotJSON
import DepotPlatform
import DepotSources
import DepotTestSupport
import Testing

/// A file's listing is versioned by the digest of its bytes, so reading the same bytes again is "unchanged" without
/// a parse, and the source's own rewrite after a removal is recognised as what the repository already holds.
@Suite("FileSource: the digest of the bytes as version")
struct FileSourceDigestTests {
    @Test("the same bytes are unchanged; one byte more is a new listing with a new digest")
    func sameBytes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id": 1}, {"id": 2}]"#)
        let source = FileSource(path: path)
        guard case .collection(_, _, let version?) = try await source.fetchItems(ifChangedSince: nil) else {
            Issue.record("a first read gives items with a version")
            return
        }
        #expect(version.digest == ContentDigest.of(Array(#"[{"id": 1}, {"id": 2}]"#.utf8)))
        #expect(try await source.fetchItems(ifChangedSince: version) == .unchanged)

        directory.write("items.json", #"[{"id": 1}, {"id": 2} ]"#)
        guard case .collection(let items, _, let newVersion?) = try await source.fetchItems(ifChangedSince: version) else {
            Issue.record("other bytes are read again")
            return
        }
        #expect(items.count == 2)
        #expect(newVersion != version)
    }

    @Test("a removal's rewrite carries the digest of what it wrote: a refresh after it finds the file unchanged")
    func ownRewrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id": 1}, {"id": 2}, {"id": 3}]"#)
        let source = FileSource(path: path)
        let (remaining, written) = try remainingList(try await source.deleteItem(id: "2"))
        let version = try #require(written, "a removal gives the list it wrote with its version")
        #expect(remaining.items.map(\.id) == ["1", "3"])
        #expect(version.digest == ContentDigest.of(try Files.readAll(path)))
        #expect(try await source.fetchItems(ifChangedSince: version) == .unchanged)
    }

    @Test("through a repository: a refresh of the same file publishes nothing; after depotd's own removal, nothing either")
    func repository() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id": 1}, {"id": 2}, {"id": 3}]"#)
        let repository = makeRepository(FileSource(path: path))
        let loaded = try await repository.load().result.get()
        #expect(try await repository.refresh(.fileChanged).result.get() == loaded)
        let removed = try await repository.remove(id: "2").result.get()
        #expect(try await repository.refresh(.fileChanged).result.get() == removed, "the file holds what the removal wrote")
        #expect(repository.current == removed)
    }
}
