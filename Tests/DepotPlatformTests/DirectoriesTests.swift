import DepotPlatform
import DepotTestSupport
import Testing

@Suite("Directories")
struct DirectoriesTests {
    @Test("create makes missing parents, each with the mode")
    func createNested() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("a/b/c")

        try Directories.create(path, mode: 0o700)

        #expect(TestFiles.isDirectory(directory.file("a")))
        #expect(TestFiles.isDirectory(directory.file("a/b")))
        #expect(TestFiles.isDirectory(path))
        #expect(TestFiles.mode(directory.file("a")) == 0o700)
        #expect(TestFiles.mode(path) == 0o700)
    }

    @Test("create accepts repeated and trailing slashes")
    func createWithExtraSlashes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Directories.create(directory.path + "//x///y/", mode: 0o755)
        #expect(TestFiles.isDirectory(directory.file("x/y")))
    }

    @Test("create on existing directories succeeds and leaves their mode alone")
    func createExisting() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Directories.create(directory.file("a"), mode: 0o751)
        try Directories.create(directory.file("a/b"), mode: 0o700)

        try Directories.create(directory.file("a/b"), mode: 0o777)
        try Directories.create(directory.file("a"), mode: 0o700)
        try Directories.create("/", mode: 0o700)

        #expect(TestFiles.mode(directory.file("a")) == 0o751)
        #expect(TestFiles.mode(directory.file("a/b")) == 0o700)
        #expect(TestFiles.entries(directory.path) == ["a"])
    }

    @Test("a file in the way of a parent fails with an error naming that file")
    func fileInTheWayOfAParent() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("file", "x")

        let error = try #require(throws: SystemError.self) {
            try Directories.create(file + "/sub/deeper", mode: 0o755)
        }

        #expect(error.description == "cannot create directory \(file): it exists and is not a directory")
        #expect(error.code == 20)  // ENOTDIR
        #expect(TestFiles.bytes(file) == Array("x".utf8))
    }

    @Test("a file at the path itself fails instead of passing for a directory")
    func fileAtThePath() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("file", "x")

        let error = try #require(throws: SystemError.self) {
            try Directories.create(file, mode: 0o755)
        }

        #expect(error.description == "cannot create directory \(file): it exists and is not a directory")
        #expect(error.code == 20)  // ENOTDIR
        #expect(TestFiles.bytes(file) == Array("x".utf8))
    }

    @Test("a dangling symbolic link at the path fails with the system's reason")
    func danglingLinkAtThePath() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.file("link")
        TestFiles.makeSymbolicLink(link, to: directory.file("nowhere"))

        let error = try #require(throws: SystemError.self) {
            try Directories.create(link, mode: 0o755)
        }

        #expect(error.description == "cannot create directory \(link): No such file or directory")
        #expect(TestFiles.isSymbolicLink(link))
    }

    @Test("a symbolic link to a directory is accepted as that directory")
    func linkToDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        TestFiles.makeDirectory(directory.file("real"))
        TestFiles.makeSymbolicLink(directory.file("link"), to: directory.file("real"))

        try Directories.create(directory.file("link/sub"), mode: 0o700)

        #expect(TestFiles.isDirectory(directory.file("real/sub")))
    }

    @Test("exists is true for files, directories and dangling links, false for nothing")
    func exists() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("file", "x")
        let dangling = directory.file("dangling")
        TestFiles.makeSymbolicLink(dangling, to: directory.file("nowhere"))

        #expect(Directories.exists(directory.path))
        #expect(Directories.exists(file))
        #expect(Directories.exists(dangling))
        #expect(!Directories.exists(directory.file("nowhere")))
        #expect(!Directories.exists(directory.file("nowhere/deeper")))
        #expect(!Directories.exists(file + "/under-a-file"))
    }

    @Test(
        "parent",
        arguments: [
            ("/var/lib/depot/items.json", "/var/lib/depot"),
            ("/items.json", "/"),
            ("/", "/"),
            ("items.json", "."),
            ("data/items.json", "data"),
            ("./items.json", "."),
            ("/run/depot/", "/run"),
            ("/run/depot//", "/run"),
            ("/run//depot", "/run"),
            ("//srv", "/"),
            ("//", "/"),
            ("data/", "."),
            ("data/items.json/", "data"),
        ])
    func parent(path: String, expected: String) {
        #expect(Directories.parent(of: path) == expected)
    }
}
