import DepotPlatform
import DepotTestSupport
import Testing

@testable import DepotControl

extension TemporaryDirectory {
    /// Creates an empty file `name` (standing in for a socket: the locator only checks that something is there).
    @discardableResult
    fileprivate func touch(_ name: String) -> String {
        write(name, "")
    }
}

@Suite("SocketLocator")
struct SocketLocatorTests {
    static let systemSocketExists = Directories.exists(RuntimePaths.systemSocketPath)

    private func locator(_ environment: [String: String], userID: UInt32 = 1000) -> SocketLocator {
        SocketLocator(paths: RuntimePaths(environment: environment, userID: userID))
    }

    @Test("an explicit --socket beats DEPOT_SOCKET and the default, whether or not it exists")
    func explicitWins() {
        let environment = ["DEPOT_SOCKET": "/env/depotd.sock", "RUNTIME_DIRECTORY": "/run/own"]
        #expect(locator(environment).socketPath(explicit: "/explicit/missing.sock") == "/explicit/missing.sock")
        #expect(locator([:]).socketPath(explicit: "relative.sock") == "relative.sock")
    }

    @Test("DEPOT_SOCKET beats the default, whether or not it exists")
    func environmentBeatsDefault() {
        let environment = ["DEPOT_SOCKET": "/env/missing.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(locator(environment).socketPath(explicit: nil) == "/env/missing.sock")
    }

    @Test("an empty --socket or DEPOT_SOCKET is ignored")
    func emptyValuesIgnored() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let own = directory.touch("depotd.sock")

        #expect(locator(["DEPOT_SOCKET": "/env/depotd.sock"]).socketPath(explicit: "") == "/env/depotd.sock")
        #expect(locator(["DEPOT_SOCKET": "", "RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: "") == own)
    }

    @Test("the default is used when something is at it")
    func existingDefault() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let own = directory.touch("depotd.sock")

        #expect(locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == own)
        #expect(locator(["RUNTIME_DIRECTORY": directory.path], userID: 0).socketPath(explicit: nil) == own)
    }

    @Test(
        "the default is kept when nothing is at it and there is no system socket either",
        .enabled(if: !systemSocketExists, "a system daemon's socket exists at /run/depot/depotd.sock on this machine")
    )
    func missingDefaultWithoutSystemSocket() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        #expect(locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == directory.path + "/depotd.sock")
        #expect(locator(["XDG_RUNTIME_DIR": directory.path]).socketPath(explicit: nil) == directory.path + "/depot/depotd.sock")
        #expect(locator([:], userID: 0).socketPath(explicit: nil) == "/run/depot/depotd.sock")
    }

    @Test(
        "the system socket is used when nothing is at the default and something is at /run/depot/depotd.sock",
        .enabled(if: systemSocketExists, "needs a system daemon's socket at /run/depot/depotd.sock, which a test may not create")
    )
    func fallsBackToSystemSocket() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        #expect(locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == RuntimePaths.systemSocketPath)
    }

    @Test("the fallback never overrides an explicit path or DEPOT_SOCKET, even when both are missing")
    func noFallbackForExplicitChoices() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/missing.sock"

        #expect(locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: missing) == missing)
        #expect(locator(["DEPOT_SOCKET": missing, "RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == missing)
    }
}
