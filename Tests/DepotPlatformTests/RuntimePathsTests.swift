import DepotPlatform
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("RuntimePaths")
struct RuntimePathsTests {
    @Test(
        "defaultSocketPath",
        arguments: [
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/depot"], userID: 0, expected: "/run/depot/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/custom"], userID: 1000, expected: "/run/custom/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/custom/"], userID: 1000, expected: "/run/custom/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/a:/run/b"], userID: 0, expected: "/run/a/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "a:b"], userID: 1000, expected: "a/depotd.sock"),
            PathCase(
                environment: ["RUNTIME_DIRECTORY": "/run/depot", "XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000,
                expected: "/run/depot/depotd.sock"),
            PathCase(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000, expected: "/run/user/1000/depot/depotd.sock"),
            PathCase(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000, expected: "/run/user/1000/depot/depotd.sock"),
            PathCase(environment: ["XDG_RUNTIME_DIR": "/run/user/0"], userID: 0, expected: "/run/user/0/depot/depotd.sock"),
            PathCase(environment: [:], userID: 0, expected: "/run/depot/depotd.sock"),
            PathCase(environment: [:], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
            PathCase(environment: [:], userID: 4_294_967_294, expected: "/tmp/depot-4294967294/depotd.sock"),
            PathCase(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/state"], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": "/run/user/7"], userID: 7, expected: "/run/user/7/depot/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""], userID: 0, expected: "/run/depot/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
            PathCase(
                environment: ["RUNTIME_DIRECTORY": ":", "XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000,
                expected: "/run/user/1000/depot/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "::"], userID: 0, expected: "/run/depot/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": ":/run/second"], userID: 0, expected: "/run/second/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "::/run/third:/run/fourth"], userID: 1000, expected: "/run/third/depotd.sock"),
            PathCase(environment: ["RUNTIME_DIRECTORY": "/run/first:"], userID: 1000, expected: "/run/first/depotd.sock"),
        ])
    func defaultSocketPath(_ test: PathCase) {
        let paths = RuntimePaths(environment: test.environment, userID: test.userID)
        #expect(paths.defaultSocketPath == test.expected)
    }

    @Test("defaultStateDirectory is StateDirectory's path")
    func defaultStateDirectory() {
        for environment in [["STATE_DIRECTORY": "/srv/a:/srv/b"], ["XDG_STATE_HOME": "/s"], ["HOME": "/home/u"], [:]] {
            for userID: UInt32 in [0, 1000] {
                let paths = RuntimePaths(environment: environment, userID: userID)
                #expect(paths.defaultStateDirectory == StateDirectory(environment: environment, userID: userID).path)
            }
        }
    }

    @Test("isRoot is uid 0 only", arguments: [(0, true), (1, false), (1000, false), (65534, false)] as [(UInt32, Bool)])
    func isRoot(userID: UInt32, expected: Bool) {
        #expect(RuntimePaths(environment: [:], userID: userID).isRoot == expected)
    }

    @Test("the fallback directory is /tmp/depot-$UID, and the defaults use it when nothing better is set")
    func fallbackDirectory() {
        let paths = RuntimePaths(environment: [:], userID: 1000)
        #expect(paths.fallbackDirectory == "/tmp/depot-1000")
        #expect(paths.defaultSocketPath == paths.fallbackDirectory + "/depotd.sock")
        #expect(paths.defaultStateDirectory == paths.fallbackDirectory + "/.local/state/depot")
    }

    @Test("the system daemon's socket path")
    func systemSocketPath() {
        #expect(RuntimePaths.systemSocketPath == "/run/depot/depotd.sock")
        #expect(RuntimePaths(environment: [:], userID: 0).defaultSocketPath == RuntimePaths.systemSocketPath)
    }

    @Test("current reads this process's environment and uid without changing them")
    func current() {
        let paths = RuntimePaths.current
        #expect(paths.userID == getuid())
        #expect(paths.environment == ProcessEnvironment.variables)
        #expect(paths.defaultSocketPath.hasSuffix("depotd.sock"))
    }
}
