import DepotPlatform
import DepotTestSupport
import Testing

@Suite("Files")
struct FilesTests {
    @Test("readAll returns every byte, including NUL and non-UTF-8 bytes")
    func readAllBytes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("data")
        let bytes: [UInt8] = [0x00, 0xFF, 0x0A, 0x7B, 0xEF, 0xBB, 0xBF, 0x00]
        TestFiles.write(path, bytes: bytes)

        #expect(try Files.readAll(path) == bytes)
    }

    @Test("readAll reads a file larger than its 64 KiB chunk")
    func readAllLarge() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("large")
        let bytes = (0..<200_003).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        TestFiles.write(path, bytes: bytes)

        #expect(try Files.readAll(path) == bytes)
    }

    @Test("readAll of an empty file is empty")
    func readAllEmpty() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("empty", "")
        #expect(try Files.readAll(path) == [])
    }

    @Test("readAll follows a symbolic link")
    func readAllThroughLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("target", "hello")
        let link = directory.file("link")
        TestFiles.makeSymbolicLink(link, to: target)
        #expect(try Files.readAll(link) == Array("hello".utf8))
    }

    @Test("readAll of a missing file names the path and the reason")
    func readAllMissing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing")

        let error = try #require(throws: SystemError.self) { try Files.readAll(path) }

        #expect(error.description == "cannot read \(path): No such file or directory")
        #expect(error.code == 2) // ENOENT
    }

    @Test("readAll of a directory says it is not a regular file")
    func readAllDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        let error = try #require(throws: SystemError.self) { try Files.readAll(directory.path) }

        #expect(error.description == "cannot read \(directory.path): it is not a regular file")
        #expect(error.code == nil)
    }

    @Test("replaceAtomically replaces the content, longer or shorter")
    func replaceContent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("file", "old content that is long")

        try Files.replaceAtomically(path, with: Array("new".utf8))
        #expect(TestFiles.bytes(path) == Array("new".utf8))

        try Files.replaceAtomically(path, with: [])
        #expect(TestFiles.bytes(path) == [])

        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        try Files.replaceAtomically(path, with: large)
        #expect(TestFiles.bytes(path) == large)
        #expect(TestFiles.entries(directory.path) == ["file"])
    }

    @Test("replaceAtomically keeps the permission bits of the file it replaces", arguments: [0o640, 0o600, 0o444, 0o755, 0o2750] as [UInt32])
    func replaceKeepsMode(mode: UInt32) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("file", "old")
        TestFiles.setMode(path, mode)

        try Files.replaceAtomically(path, with: Array("new".utf8))

        #expect(TestFiles.mode(path) == mode)
        #expect(TestFiles.bytes(path) == Array("new".utf8))
    }

    @Test("replaceAtomically creates a missing file with mode 0644")
    func replaceCreatesFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("new")

        try Files.replaceAtomically(path, with: Array("{}".utf8))

        #expect(TestFiles.bytes(path) == Array("{}".utf8))
        #expect(TestFiles.mode(path) == 0o644)
        #expect(TestFiles.entries(directory.path) == ["new"])
    }

    @Test("replaceAtomically into a missing directory names the path and leaves nothing behind")
    func replaceMissingDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nodir/file")

        let error = try #require(throws: SystemError.self) { try Files.replaceAtomically(path, with: [1]) }

        #expect(error.description.hasPrefix("cannot write \(path): cannot create \(directory.path)/nodir/.file."))
        #expect(error.description.hasSuffix(".tmp: No such file or directory"))
        #expect(error.code == 2) // ENOENT
        #expect(TestFiles.entries(directory.path) == [])
    }

    @Test("replaceAtomically over a directory fails, removes its temporary file, and leaves the directory")
    func replaceOverDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("dir")
        TestFiles.makeDirectory(path)

        let error = try #require(throws: SystemError.self) { try Files.replaceAtomically(path, with: [1]) }

        #expect(error.description == "cannot write \(path): rename failed: Is a directory")
        #expect(TestFiles.entries(directory.path) == ["dir"])
        #expect(TestFiles.isDirectory(path))
    }
}
