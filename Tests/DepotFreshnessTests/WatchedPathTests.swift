import DepotFreshness
import DepotTestSupport
import Glibc
import Testing

@Suite("WatchedPath: which directories are watched, and what each event means for the file")
struct WatchedPathTests {
    static func event(_ mask: Int32, _ name: String) -> InotifyEvent {
        InotifyEvent(watch: 1, mask: UInt32(bitPattern: mask), name: name)
    }

    @Test("a plain file: its directory; events for its name say how it changed; other names mean nothing")
    func plainFile() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", "[]")
        let watched = WatchedPath(path)
        #expect(watched.directories == [directory.path])
        let cases: [(Int32, String, FileChange?)] = [
            (IN_MODIFY, "items.json", .writing), (IN_CLOSE_WRITE, "items.json", .written), (IN_MOVED_TO, "items.json", .replaced),
            (IN_DELETE, "items.json", .removed), (IN_MOVED_FROM, "items.json", .removed), (IN_MODIFY, "other.json", nil),
            (IN_MOVED_TO, "other.json", nil), (IN_DELETE_SELF, "", .unknown), (IN_MOVE_SELF, "", .unknown), (IN_Q_OVERFLOW, "", .unknown),
        ]
        for (mask, name, expected) in cases {
            #expect(watched.change(of: Self.event(mask, name), in: directory.path) == expected, "\(Self.event(mask, name))")
        }
    }

    @Test("a file created under its name is being written, unless it is a symlink or a hard link, which are whole")
    func created() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let watched = WatchedPath(directory.file("items.json"))
        let create = Self.event(IN_CREATE, "items.json")
        #expect(watched.change(of: create, in: directory.path, isComplete: { _ in false }) == .writing)
        #expect(watched.change(of: create, in: directory.path, isComplete: { _ in true }) == .replaced)

        let other = directory.write("other.json", "[]")
        #expect(!WatchedPath.isComplete(other), "one name: opened to be written")
        link(other, directory.file("hard.json"))
        #expect(WatchedPath.isComplete(other), "two names")
        symlink(other, directory.file("soft.json"))
        #expect(WatchedPath.isComplete(directory.file("soft.json")))
    }

    @Test("a path through symlinks (the ConfigMap ..data pattern): both directories; any entry beside the link may swap it")
    func configMap() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        mkdir(directory.file("..2026_11_26"), 0o755)
        directory.write("..2026_11_26/items.json", "[]")
        symlink("..2026_11_26", directory.file("..data"))
        symlink("..data/items.json", directory.file("items.json"))
        let watched = WatchedPath(directory.file("items.json"))
        #expect(watched.isLink)
        #expect(watched.directories == [directory.path, directory.file("..2026_11_26")])
        #expect(watched.change(of: Self.event(IN_MOVED_TO, "..data"), in: directory.path) == .maybeReplaced)
        #expect(watched.change(of: Self.event(IN_CREATE, "..data_tmp"), in: directory.path) == .maybeReplaced)
        #expect(watched.change(of: Self.event(IN_MODIFY, "..data_tmp"), in: directory.path) == nil)
        #expect(watched.change(of: Self.event(IN_CLOSE_WRITE, "items.json"), in: directory.file("..2026_11_26")) == .written)
        #expect(watched.change(of: Self.event(IN_DELETE_SELF, ""), in: directory.file("..2026_11_26")) == .unknown)
    }
}
