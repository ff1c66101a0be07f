/// How to start the depotd a client found missing at a socket, fitting how depotd was installed: the systemd socket
/// unit when one is installed for that socket, else depotd itself (with `--socket` when the path is not its default).
/// depotctl and the Python package say the same, so a user is told one thing.
public struct StartCommand: Sendable {
    /// Where installed system and user units are looked for, in systemd's order.
    public var systemUnitDirectories = ["/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"]
    public var userUnitDirectories: [String]
    public let paths: RuntimePaths

    public init(paths: RuntimePaths) {
        self.paths = paths
        let home = paths.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let configHome = paths.environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home.map { $0 + "/.config" }
        userUnitDirectories = (configHome.map { [$0 + "/systemd/user"] } ?? []) + ["/etc/systemd/user", "/usr/lib/systemd/user"]
    }

    /// The command that starts a depotd listening on `socket`.
    public func command(forSocket socket: String) -> String {
        if socket == RuntimePaths.systemSocketPath, installed("depotd.socket", in: systemUnitDirectories) {
            return "systemctl start depotd.socket"
        }
        if let name = RuntimePaths.instance(ofSocket: socket), socket != RuntimePaths.systemSocketPath,
            installed("depotd@.socket", in: systemUnitDirectories)
        {
            return "systemctl start depotd@\(name).socket"
        }
        if socket == paths.userRuntimeSocketPath, installed("depotd.socket", in: userUnitDirectories) {
            return "systemctl --user start depotd.socket"
        }
        return socket == paths.defaultSocketPath ? "depotd" : "depotd --socket \(socket)"
    }

    private func installed(_ unit: String, in directories: [String]) -> Bool {
        directories.contains { Directories.exists($0 + "/" + unit) }
    }
}
