import DepotPlatform
import DepotTestSupport
import Testing

@Suite("StartCommand: how to start depotd, as it is installed")
struct StartCommandTests {
    /// A start command whose unit directories are a temporary directory's, holding `units`.
    static func command(
        installing system: [String] = [], user: [String] = [], environment: [String: String] = [:], userID: UInt32 = 1000,
        in directory: TemporaryDirectory
    ) -> StartCommand {
        for kind in ["system", "user"] { try? Directories.create(directory.file(kind), mode: 0o755) }
        for unit in system { _ = directory.write("system/\(unit)", "") }
        for unit in user { _ = directory.write("user/\(unit)", "") }
        var command = StartCommand(paths: RuntimePaths(environment: environment, userID: userID))
        command.systemUnitDirectories = [directory.file("system")]
        command.userUnitDirectories = [directory.file("user")]
        return command
    }

    @Test("the system socket unit, when installed for the system socket or an instance's")
    func systemUnits() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let command = Self.command(installing: ["depotd.socket", "depotd@.socket"], userID: 0, in: directory)
        #expect(command.command(forSocket: "/run/depot/depotd.sock") == "systemctl start depotd.socket")
        #expect(command.command(forSocket: "/run/depot/kiosk.sock") == "systemctl start depotd@kiosk.socket")
        #expect(command.command(forSocket: "/srv/other.sock") == "depotd --socket /srv/other.sock")
    }

    @Test("the user's socket unit, for the user's default socket")
    func userUnit() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let environment = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        let command = Self.command(user: ["depotd.socket"], environment: environment, in: directory)
        #expect(command.command(forSocket: "/run/user/1000/depot/depotd.sock") == "systemctl --user start depotd.socket")
    }

    @Test("no unit installed: depotd itself, with --socket unless the path is its default")
    func noUnits() {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let command = Self.command(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], in: directory)
        #expect(command.command(forSocket: "/run/depot/depotd.sock") == "depotd --socket /run/depot/depotd.sock")
        #expect(command.command(forSocket: "/run/user/1000/depot/depotd.sock") == "depotd")
        let root = Self.command(userID: 0, in: directory)
        #expect(root.command(forSocket: "/run/depot/depotd.sock") == "depotd")
    }
}
