import DepotPlatform
import DepotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("StateDirectory")
struct StateDirectoryTests {
    @Test(
        "$STATE_DIRECTORY (its first entry), else $XDG_STATE_HOME/depot, else /var/lib/depot for root, else ~/.local/state/depot",
        arguments: [
            PathCase(environment: ["STATE_DIRECTORY": "/var/lib/depot"], userID: 0, expected: "/var/lib/depot"),
            PathCase(environment: ["STATE_DIRECTORY": "/srv/state"], userID: 1000, expected: "/srv/state"),
            PathCase(environment: ["STATE_DIRECTORY": "/srv/a:/srv/b"], userID: 0, expected: "/srv/a"),
            PathCase(
                environment: ["STATE_DIRECTORY": "/srv/state", "XDG_STATE_HOME": "/x", "HOME": "/home/u"], userID: 1000, expected: "/srv/state"),
            PathCase(environment: ["XDG_STATE_HOME": "/home/u/.state"], userID: 1000, expected: "/home/u/.state/depot"),
            PathCase(environment: ["XDG_STATE_HOME": "/home/u/.state/", "HOME": "/home/u"], userID: 1000, expected: "/home/u/.state/depot"),
            PathCase(environment: ["XDG_STATE_HOME": "/root/.state"], userID: 0, expected: "/root/.state/depot"),
            PathCase(environment: [:], userID: 0, expected: "/var/lib/depot"),
            PathCase(environment: ["HOME": "/root"], userID: 0, expected: "/var/lib/depot"),
            PathCase(environment: ["HOME": "/home/u"], userID: 1000, expected: "/home/u/.local/state/depot"),
            PathCase(environment: ["HOME": "/home/u/"], userID: 1000, expected: "/home/u/.local/state/depot"),
            PathCase(environment: [:], userID: 1000, expected: "/tmp/depot-1000/.local/state/depot"),
            PathCase(
                environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "", "HOME": "/home/u"], userID: 1000, expected: "/home/u/.local/state/depot"),
            PathCase(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "/s"], userID: 1000, expected: "/s/depot"),
            PathCase(environment: ["STATE_DIRECTORY": ":", "XDG_STATE_HOME": "/s"], userID: 1000, expected: "/s/depot"),
            PathCase(environment: ["STATE_DIRECTORY": ":"], userID: 0, expected: "/var/lib/depot"),
            PathCase(environment: ["STATE_DIRECTORY": ":/srv/second"], userID: 0, expected: "/srv/second"),
            PathCase(environment: ["STATE_DIRECTORY": ":::/srv/b:/srv/c", "HOME": "/home/u"], userID: 1000, expected: "/srv/b"),
            PathCase(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "", "HOME": ""], userID: 0, expected: "/var/lib/depot"),
            PathCase(environment: ["HOME": ""], userID: 1000, expected: "/tmp/depot-1000/.local/state/depot"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/depot", "XDG_RUNTIME_DIR": "/run/user/1"], userID: 0, expected: "/var/lib/depot"),
        ])
    func path(_ test: PathCase) {
        #expect(StateDirectory(environment: test.environment, userID: test.userID).path == test.expected)
    }

    @Test("current reads this process's environment and uid")
    func current() {
        #expect(StateDirectory.current == StateDirectory(environment: ProcessEnvironment.variables, userID: getuid()))
    }

    @Test("file joins a name to the path, with or without a trailing slash")
    func file() {
        #expect(StateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/depot"], userID: 0).file("cache.sqlite") == "/var/lib/depot/cache.sqlite")
        #expect(StateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/depot/"], userID: 0).file("cache.sqlite") == "/var/lib/depot/cache.sqlite")
    }

    @Test("create makes the directory and its missing parents with mode 0700")
    func createsMissing() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let state = StateDirectory(environment: ["XDG_STATE_HOME": directory.file("state")], userID: 1000)
        try state.create()
        #expect(state.path == directory.file("state/depot"))
        #expect(FileMode(ofPath: state.path) == FileMode(0o700))
        #expect(FileMode(ofPath: directory.file("state")) == FileMode(0o700))
    }

    @Test("create leaves an existing directory and its mode alone")
    func keepsExisting() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(chmod(directory.path, 0o750) == 0)
        let state = StateDirectory(environment: ["STATE_DIRECTORY": directory.path], userID: 1000)
        try state.create()
        try state.create()
        #expect(FileMode(ofPath: directory.path) == FileMode(0o750))
    }

    @Test("create fails naming the path when a file stands where the directory should be")
    func fileInTheWay() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.write("state", "not a directory")
        let state = StateDirectory(environment: ["XDG_STATE_HOME": file], userID: 1000)
        let error = try #require(throws: SystemError.self) { try state.create() }
        #expect(error.description.contains(file))
    }
}
