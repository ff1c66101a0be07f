import DepotDaemon
import DepotPlatform
import DepotSources
import DepotSystemd
import DepotTestSupport
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The private fallback directory under /tmp")
struct PrivateFallbackTests {
    @Test(
        "privateDirectory is /tmp/depot-$UID exactly when the socket, or the state directory (the cache, the default collection), is in it",
        arguments: [
            ([], [:], 1000, "/tmp/depot-1000"),
            ([], ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"], 1000, nil),
            ([], ["XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/tmp/depot-1000"),
            // The cache is in the state directory, whatever the source; without a cache a source file needs none.
            (["--source", "file:/srv/items.json"], ["XDG_RUNTIME_DIR": "/run/user/1000"], 1000, "/tmp/depot-1000"),
            (["--source", "file:/srv/items.json", "--no-cache"], ["XDG_RUNTIME_DIR": "/run/user/1000"], 1000, nil),
            (["--source", "file:/srv/items.json"], ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"], 1000, nil),
            (["--source", "file:/srv/items.json"], [:], 1000, "/tmp/depot-1000"),
            ([], ["HOME": "/home/u"], 1000, "/tmp/depot-1000"),
            (["--socket", "/srv/depotd.sock"], ["HOME": "/home/u"], 1000, nil),
            (["--socket", "/tmp/depot-1000/other.sock"], ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"], 1000, "/tmp/depot-1000"),
            (["--socket", "/tmp/depot-10000/depotd.sock"], ["HOME": "/home/u"], 1000, nil),
            ([], ["RUNTIME_DIRECTORY": ":", "STATE_DIRECTORY": ""], 1000, "/tmp/depot-1000"),
            ([], [:], 0, nil),
        ] as [([String], [String: String], UInt32, String?)])
    func privateDirectory(arguments: [String], environment: [String: String], userID: UInt32, expected: String?) throws {
        #expect(try resolve(arguments, environment: environment, userID: userID).privateDirectory == expected)
    }

    /// A socket path in `directory` too long for a Unix socket: if depotd got as far as starting the server,
    /// it would fail at once with the server's error instead of the refusal (rather than serving forever).
    static func unusableSocket(in directory: String) -> String {
        directory + "/" + String(repeating: "s", count: 120) + ".sock"
    }

    @Test("depotd refuses a fallback directory others may write, before it starts the server")
    func refusesSharedDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.file("depot-1000")
        try Directories.create(shared, mode: 0o700)
        #expect(chmod(shared, 0o777) == 0)
        let items = directory.write("items.json", "[]")
        var settings = try resolve(["--source", "file:\(items)", "--socket", Self.unusableSocket(in: shared)])
        settings.privateDirectory = shared

        let error = try await #require(throws: SystemError.self) {
            try await Daemon(
                options: DaemonOptions(), settings: settings, workingDirectory: directory.path, level: LogLevelControl(.info), logger: Self.logger
            ).run()
        }

        #expect(error.description == "refusing to use \(shared): it is writable by others (mode 0777); remove it or set XDG_RUNTIME_DIR")
    }

    @Test("the remedy names the variables that would move what lives there: the socket's and the state's")
    func remedyForSocketAndState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.file("depot-1000")
        TemporaryDirectory.symbolicLink(shared, to: directory.path)
        var settings = try resolve(["--socket", Self.unusableSocket(in: shared)])
        settings.stateDirectory = shared + "/.local/state/depot"
        settings.privateDirectory = shared

        let error = try await #require(throws: SystemError.self) {
            try await Daemon(
                options: DaemonOptions(), settings: settings, workingDirectory: directory.path, level: LogLevelControl(.info), logger: Self.logger
            ).run()
        }

        #expect(
            error.description
                == "refusing to use \(shared): it is a symbolic link, not a directory; remove it or set XDG_RUNTIME_DIR and XDG_STATE_HOME")
        #expect(!Directories.exists(directory.file(".local")))
    }

    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension TemporaryDirectory {
    fileprivate static func symbolicLink(_ path: String, to target: String) {
        precondition(symlink(target, path) == 0, "symlink \(path) failed")
    }
}
