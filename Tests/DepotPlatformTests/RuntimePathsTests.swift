#if canImport(Glibc)
import Glibc
#endif
import DepotPlatform
import Testing

@Suite("RuntimePaths")
struct RuntimePathsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let environment: [String: String]
        let userID: UInt32
        let expected: String
        var testDescription: String {
            let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "uid \(userID) [\(variables)] → \(expected)"
        }
    }

    @Test("defaultSocketPath", arguments: [
        Case(environment: ["RUNTIME_DIRECTORY": "/run/depot"], userID: 0, expected: "/run/depot/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/custom"], userID: 1000, expected: "/run/custom/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/custom/"], userID: 1000, expected: "/run/custom/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/a:/run/b"], userID: 0, expected: "/run/a/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "a:b"], userID: 1000, expected: "a/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/depot", "XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000, expected: "/run/depot/depotd.sock"),
        Case(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000, expected: "/run/user/1000/depot/depotd.sock"),
        Case(environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"], userID: 1000, expected: "/run/user/1000/depot/depotd.sock"),
        Case(environment: ["XDG_RUNTIME_DIR": "/run/user/0"], userID: 0, expected: "/run/user/0/depot/depotd.sock"),
        Case(environment: [:], userID: 0, expected: "/run/depot/depotd.sock"),
        Case(environment: [:], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
        Case(environment: [:], userID: 4_294_967_294, expected: "/tmp/depot-4294967294/depotd.sock"),
        Case(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/state"], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": "/run/user/7"], userID: 7, expected: "/run/user/7/depot/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""], userID: 0, expected: "/run/depot/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""], userID: 1000, expected: "/tmp/depot-1000/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": ":", "XDG_RUNTIME_DIR": "/run/user/1000"], userID: 1000, expected: "/run/user/1000/depot/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "::"], userID: 0, expected: "/run/depot/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": ":/run/second"], userID: 0, expected: "/run/second/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "::/run/third:/run/fourth"], userID: 1000, expected: "/run/third/depotd.sock"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/first:"], userID: 1000, expected: "/run/first/depotd.sock"),
    ])
    func defaultSocketPath(_ test: Case) {
        let paths = RuntimePaths(environment: test.environment, userID: test.userID)
        #expect(paths.defaultSocketPath == test.expected)
    }

    @Test("defaultStateDirectory", arguments: [
        Case(environment: ["STATE_DIRECTORY": "/var/lib/depot"], userID: 0, expected: "/var/lib/depot"),
        Case(environment: ["STATE_DIRECTORY": "/srv/state"], userID: 1000, expected: "/srv/state"),
        Case(environment: ["STATE_DIRECTORY": "/srv/a:/srv/b"], userID: 0, expected: "/srv/a"),
        Case(environment: ["STATE_DIRECTORY": "/srv/state", "XDG_STATE_HOME": "/x", "HOME": "/home/u"], userID: 1000, expected: "/srv/state"),
        Case(environment: ["XDG_STATE_HOME": "/home/u/.state"], userID: 1000, expected: "/home/u/.state/depot"),
        Case(environment: ["XDG_STATE_HOME": "/home/u/.state/", "HOME": "/home/u"], userID: 1000, expected: "/home/u/.state/depot"),
        Case(environment: ["XDG_STATE_HOME": "/root/.state"], userID: 0, expected: "/root/.state/depot"),
        Case(environment: [:], userID: 0, expected: "/var/lib/depot"),
        Case(environment: ["HOME": "/root"], userID: 0, expected: "/var/lib/depot"),
        Case(environment: ["HOME": "/home/u"], userID: 1000, expected: "/home/u/.local/state/depot"),
        Case(environment: ["HOME": "/home/u/"], userID: 1000, expected: "/home/u/.local/state/depot"),
        Case(environment: [:], userID: 1000, expected: "/tmp/depot-1000/.local/state/depot"),
        Case(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "", "HOME": "/home/u"], userID: 1000, expected: "/home/u/.local/state/depot"),
        Case(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "/s"], userID: 1000, expected: "/s/depot"),
        Case(environment: ["STATE_DIRECTORY": ":", "XDG_STATE_HOME": "/s"], userID: 1000, expected: "/s/depot"),
        Case(environment: ["STATE_DIRECTORY": ":"], userID: 0, expected: "/var/lib/depot"),
        Case(environment: ["STATE_DIRECTORY": ":/srv/second"], userID: 0, expected: "/srv/second"),
        Case(environment: ["STATE_DIRECTORY": ":::/srv/b:/srv/c", "HOME": "/home/u"], userID: 1000, expected: "/srv/b"),
        Case(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "", "HOME": ""], userID: 0, expected: "/var/lib/depot"),
        Case(environment: ["HOME": ""], userID: 1000, expected: "/tmp/depot-1000/.local/state/depot"),
        Case(environment: ["RUNTIME_DIRECTORY": "/run/depot", "XDG_RUNTIME_DIR": "/run/user/1"], userID: 0, expected: "/var/lib/depot"),
    ])
    func defaultStateDirectory(_ test: Case) {
        let paths = RuntimePaths(environment: test.environment, userID: test.userID)
        #expect(paths.defaultStateDirectory == test.expected)
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
