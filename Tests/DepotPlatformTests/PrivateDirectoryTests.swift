import DepotPlatform
import DepotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("PrivateDirectory")
struct PrivateDirectoryTests {
    @Test("a missing directory is created with mode 0700")
    func createsMissing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("depot-1000")

        try PrivateDirectory.ensure(path)

        #expect(TestFiles.isDirectory(path))
        #expect(TestFiles.mode(path) == 0o700)
    }

    @Test("an existing directory of ours that others cannot write is accepted and left alone", arguments: [0o700, 0o755, 0o711, 0o1700] as [UInt32])
    func acceptsOwnDirectory(mode: UInt32) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("depot-1000")
        TestFiles.makeDirectory(path)
        TestFiles.setMode(path, mode)
        directory.write("depot-1000/depotd.sock", "")

        try PrivateDirectory.ensure(path)

        #expect(TestFiles.mode(path) == mode)
        #expect(TestFiles.entries(path) == ["depotd.sock"])
    }

    @Test("a directory that its group or others may write is refused", arguments: [0o777, 0o770, 0o702, 0o1777] as [UInt32])
    func refusesWritableByOthers(mode: UInt32) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("depot-1000")
        TestFiles.makeDirectory(path)
        TestFiles.setMode(path, mode)

        let error = try #require(throws: SystemError.self) { try PrivateDirectory.ensure(path) }

        #expect(error.description == "refusing to use \(path): it is writable by others (mode \(FileMode(mode))); remove it or set XDG_RUNTIME_DIR")
        #expect(TestFiles.mode(path) == mode)
    }

    @Test("a directory owned by another uid is refused")
    func refusesOtherOwner() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("depot-1000")
        TestFiles.makeDirectory(path)
        TestFiles.setMode(path, 0o700)
        // The directory is ours; asking for another uid stands in for a directory another user made.
        let other = getuid() == 4_000_000 ? 4_000_001 : 4_000_000 as UInt32

        let error = try #require(throws: SystemError.self) { try PrivateDirectory.ensure(path, userID: other) }

        #expect(
            error.description
                == "refusing to use \(path): it is owned by uid \(getuid()), not by this user (uid \(other)); remove it or set XDG_RUNTIME_DIR")
    }

    @Test("a symbolic link is refused, even to a private directory of ours")
    func refusesSymbolicLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let real = directory.file("real")
        TestFiles.makeDirectory(real)
        TestFiles.setMode(real, 0o700)
        let link = directory.file("depot-1000")
        TestFiles.makeSymbolicLink(link, to: real)

        let error = try #require(throws: SystemError.self) {
            try PrivateDirectory.ensure(link, remedy: "remove it or set XDG_STATE_HOME")
        }

        #expect(error.description == "refusing to use \(link): it is a symbolic link, not a directory; remove it or set XDG_STATE_HOME")
        #expect(TestFiles.isSymbolicLink(link))
    }

    @Test("a dangling symbolic link is refused, not followed to create its target")
    func refusesDanglingLink() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.file("depot-1000")
        TestFiles.makeSymbolicLink(link, to: directory.file("elsewhere"))

        let error = try #require(throws: SystemError.self) { try PrivateDirectory.ensure(link) }

        #expect(error.description == "refusing to use \(link): it is a symbolic link, not a directory; remove it or set XDG_RUNTIME_DIR")
        #expect(TestFiles.entries(directory.path) == ["depot-1000"])
    }

    @Test("a file is refused")
    func refusesFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("depot-1000", "x")

        let error = try #require(throws: SystemError.self) { try PrivateDirectory.ensure(path) }

        #expect(error.description == "refusing to use \(path): it is not a directory; remove it or set XDG_RUNTIME_DIR")
    }

    @Test("a missing parent is an error naming the directory")
    func missingParent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing/depot-1000")

        let error = try #require(throws: SystemError.self) { try PrivateDirectory.ensure(path) }

        #expect(error.description == "cannot create directory \(path): No such file or directory")
    }
}
