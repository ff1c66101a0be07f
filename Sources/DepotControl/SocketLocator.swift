import ArgumentParser
import DepotPlatform

/// Finds the daemon's socket the way depotd chooses it, so the two meet without flags.
struct SocketLocator {
    let paths: RuntimePaths
    /// The system daemon's socket, tried when nothing is at the default (a parameter so tests need not touch /run).
    var systemSocketPath = RuntimePaths.systemSocketPath

    /// `explicit` (from --socket), else the socket of `instance` (-n NAME: depotd@NAME's /run/depot/NAME.sock),
    /// else DEPOT_SOCKET, else depotd's default; when nothing is at that default, the system daemon's socket if
    /// one exists, so a user's depotctl finds the daemon systemd runs.
    func socketPath(explicit: String?, instance: String? = nil) throws(ValidationError) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let instance {
            guard !instance.isEmpty, !instance.contains("/"), instance != ".", instance != ".." else {
                throw ValidationError("-n/--instance takes the NAME of depotd@NAME (no slashes); found \"\(instance)\"")
            }
            return RuntimePaths.instanceSocketPath(instance)
        }
        if let fromEnvironment = paths.environment["DEPOT_SOCKET"], !fromEnvironment.isEmpty { return fromEnvironment }
        let own = paths.defaultSocketPath
        if !Directories.exists(own), Directories.exists(systemSocketPath) {
            return systemSocketPath
        }
        return own
    }
}
