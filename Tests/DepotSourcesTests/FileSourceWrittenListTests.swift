import DepotCore
import DepotPlatform
import DepotSources
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("FileSource: a removal after its own rewrite does not read the file again, unless it changed")
struct FileSourceWrittenListTests {
    static let items = """
        [
        {"id":"a","n":1},
        {"id":"b","n":2},
        {"id":"c","n":3},
        {"id":"d","n":4}
        ]

        """

    @Test("while the file has the stamp of the source's own rewrite, the list it wrote is used, not the file")
    func usesWhatItWrote() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.items)
        let source = FileSource(path: path)
        try await source.deleteItem(id: "a")
        let stamp = try #require(FileStamp.of(path))

        // The stamp is unchanged, so the source must not read the file (it would fail to parse it).
        try Self.overwriteKeepingStamp(path, stamp)

        let remaining = try remainingList(try await source.deleteItem(id: "b")).items
        #expect(remaining.items.map(\.id) == ["c", "d"])
    }

    @Test("asked whether the file changed since its own rewrite, while the file has that rewrite's stamp: unchanged, without a read")
    func unchangedSinceItsRewrite() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.items)
        let source = FileSource(path: path)
        let version = try remainingList(try await source.deleteItem(id: "a")).version
        let stamp = try #require(FileStamp.of(path))
        try Self.overwriteKeepingStamp(path, stamp)
        #expect(try await source.fetchItems(ifChangedSince: version) == .unchanged)

        // Edited for real: read, and seen.
        _ = directory.write("items.json", #"[{"id":"x"}]"#)
        guard case .collection(let items, _, _) = try await source.fetchItems(ifChangedSince: version) else {
            Issue.record("expected the edited list")
            return
        }
        #expect(items.items.map(\.id) == ["x"])
    }

    /// Garbage of the same size written over `path` in place, and the modification time put back: the stamp is
    /// unchanged, so a source that reads the file would fail to parse it.
    static func overwriteKeepingStamp(_ path: String, _ stamp: FileStamp) throws {
        let size = Int(stamp.size)
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        _ = [UInt8](repeating: UInt8(ascii: "#"), count: size).withUnsafeBytes { write(fd, $0.baseAddress, size) }
        var times = [
            timespec(tv_sec: stamp.modifiedSeconds, tv_nsec: stamp.modifiedNanoseconds),
            timespec(tv_sec: stamp.modifiedSeconds, tv_nsec: stamp.modifiedNanoseconds),
        ]
        _ = futimens(fd, &times)
        close(fd)
        try #require(FileStamp.of(path) == stamp)
    }

    @Test("a file edited since the source's rewrite is read again")
    func readsAnEditedFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.items)
        let source = FileSource(path: path)
        try await source.deleteItem(id: "a")
        _ = directory.write("items.json", #"[{"id":"x"},{"id":"b"},{"id":"y"}]"#)

        let remaining = try remainingList(try await source.deleteItem(id: "b")).items
        #expect(remaining.items.map(\.id) == ["x", "y"], "the edit is seen")
        await #expect(throws: SourceError.self) { try await source.deleteItem(id: "c") }
    }
}
