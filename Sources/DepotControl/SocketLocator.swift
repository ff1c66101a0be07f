import DepotPlatform

/// Finds the daemon's socket the way depotd chooses it, so the two meet without flags.
struct SocketLocator {
    let paths: RuntimePaths

    /// `explicit` (from --socket), else DEPOT_SOCKET, else depotd's default; when nothing is at that default,
    /// the system daemon's socket if one exists, so a user's depotctl finds the daemon systemd runs.
    func socketPath(explicit: String?) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = paths.environment["DEPOT_SOCKET"], !fromEnvironment.isEmpty { return fromEnvironment }
        let own = paths.defaultSocketPath
        if !Directories.exists(own), Directories.exists(RuntimePaths.systemSocketPath) {
            return RuntimePaths.systemSocketPath
        }
        return own
    }
}
