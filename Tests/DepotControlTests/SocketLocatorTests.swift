import ArgumentParser
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
    /// A locator whose system socket is `systemSocket` — by default a path where nothing is, so what a machine's own
    /// /run/depot holds (a system depotd, or a socket one left) changes no test.
    private func locator(
        _ environment: [String: String], userID: UInt32 = 1000, systemSocket: String = "/nonexistent/depot/depotd.sock"
    ) -> SocketLocator {
        SocketLocator(paths: RuntimePaths(environment: environment, userID: userID), systemSocketPath: systemSocket)
    }

    @Test("an explicit --socket beats DEPOT_SOCKET and the default, whether or not it exists")
    func explicitWins() throws {
        let environment = ["DEPOT_SOCKET": "/env/depotd.sock", "RUNTIME_DIRECTORY": "/run/own"]
        #expect(try locator(environment).socketPath(explicit: "/explicit/missing.sock") == "/explicit/missing.sock")
        #expect(try locator([:]).socketPath(explicit: "relative.sock") == "relative.sock")
    }

    @Test("-n NAME is depotd@NAME's socket, after --socket and before DEPOT_SOCKET; a NAME with a slash is refused")
    func instance() throws {
        let environment = ["DEPOT_SOCKET": "/env/depotd.sock"]
        #expect(try locator(environment).socketPath(explicit: nil, instance: "books") == "/run/depot/books.sock")
        #expect(try locator(environment).socketPath(explicit: "/x.sock", instance: "books") == "/x.sock")
        for bad in ["", "a/b", "..", "."] {
            #expect(throws: ValidationError.self) { try locator(environment).socketPath(explicit: nil, instance: bad) }
        }
    }

    @Test("DEPOT_SOCKET beats the default, whether or not it exists")
    func environmentBeatsDefault() throws {
        let environment = ["DEPOT_SOCKET": "/env/missing.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(try locator(environment).socketPath(explicit: nil) == "/env/missing.sock")
    }

    @Test("an empty --socket or DEPOT_SOCKET is ignored")
    func emptyValuesIgnored() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let own = directory.touch("depotd.sock")

        #expect(try locator(["DEPOT_SOCKET": "/env/depotd.sock"]).socketPath(explicit: "") == "/env/depotd.sock")
        #expect(try locator(["DEPOT_SOCKET": "", "RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: "") == own)
    }

    @Test("the default is used when something is at it")
    func existingDefault() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let own = directory.touch("depotd.sock")

        #expect(try locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == own)
        #expect(try locator(["RUNTIME_DIRECTORY": directory.path], userID: 0).socketPath(explicit: nil) == own)
    }

    @Test("the default is kept when nothing is at it and there is no system socket either")
    func missingDefaultWithoutSystemSocket() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        #expect(try locator(["RUNTIME_DIRECTORY": directory.path]).socketPath(explicit: nil) == directory.path + "/depotd.sock")
        #expect(try locator(["XDG_RUNTIME_DIR": directory.path]).socketPath(explicit: nil) == directory.path + "/depot/depotd.sock")
        #expect(try locator([:], userID: 0).socketPath(explicit: nil) == "/run/depot/depotd.sock")
    }

    @Test("the system socket is used when nothing is at the default and something is at the system socket's path")
    func fallsBackToSystemSocket() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let system = directory.touch("system.sock")
        let own = TemporaryDirectory()
        defer { own.remove() }

        #expect(try locator(["RUNTIME_DIRECTORY": own.path], systemSocket: system).socketPath(explicit: nil) == system)
        #expect(try locator(["XDG_RUNTIME_DIR": own.path], systemSocket: system).socketPath(explicit: nil) == system)
        // Once something is at the default, the default wins again.
        let ownSocket = own.touch("depotd.sock")
        #expect(try locator(["RUNTIME_DIRECTORY": own.path], systemSocket: system).socketPath(explicit: nil) == ownSocket)
    }

    @Test("the fallback never overrides an explicit path or DEPOT_SOCKET, even when both are missing")
    func noFallbackForExplicitChoices() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/missing.sock"
        let system = directory.touch("system.sock")

        #expect(try locator(["RUNTIME_DIRECTORY": directory.path], systemSocket: system).socketPath(explicit: missing) == missing)
        #expect(
            try locator(["DEPOT_SOCKET": missing, "RUNTIME_DIRECTORY": directory.path], systemSocket: system).socketPath(explicit: nil)
                == missing)
    }
}
