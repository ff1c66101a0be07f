#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where depotd puts its socket and its state when none is configured, following systemd's and XDG's
/// conventions. depotd and depotctl resolve the same way, so they find each other without flags.
public struct RuntimePaths: Sendable {
    public let environment: [String: String]
    public let userID: UInt32

    public init(environment: [String: String], userID: UInt32) {
        self.environment = environment
        self.userID = userID
    }

    /// The paths for this process.
    public static var current: RuntimePaths {
        RuntimePaths(environment: ProcessEnvironment.variables, userID: getuid())
    }

    public var isRoot: Bool { userID == 0 }

    /// `$RUNTIME_DIRECTORY/depotd.sock`, else `$XDG_RUNTIME_DIR/depot/depotd.sock`, else
    /// `/run/depot/depotd.sock` for root and `/tmp/depot-$UID/depotd.sock` for others.
    public var defaultSocketPath: String {
        if let directory = firstListed("RUNTIME_DIRECTORY") {
            return join(directory, "depotd.sock")
        }
        if let userSocket = userRuntimeSocketPath {
            return userSocket
        }
        return isRoot ? Self.systemSocketPath : join(fallbackDirectory, "depotd.sock")
    }

    /// `$XDG_RUNTIME_DIR/depot/depotd.sock`: a user's depotd's socket in the user's runtime directory; nil without one.
    public var userRuntimeSocketPath: String? {
        nonEmpty("XDG_RUNTIME_DIR").map { join($0, "depot/depotd.sock") }
    }

    /// `/tmp/depot-$UID`: where a user's depotd keeps its socket, and its state when there is no `$HOME`,
    /// when nothing better is set. /tmp is shared, so depotd must make sure this directory is its own
    /// (see `PrivateDirectory`) before it puts anything there.
    public var fallbackDirectory: String {
        "/tmp/depot-\(userID)"
    }

    /// The system daemon's socket, which depotctl also tries when nothing listens at its own default.
    public static let systemSocketPath = "/run/depot/depotd.sock"

    /// The socket of depotd@NAME: `/run/depot/NAME.sock`.
    public static func instanceSocketPath(_ name: String) -> String {
        "/run/depot/\(name).sock"
    }

    /// NAME, for the socket of depotd@NAME (`instanceSocketPath`); nil for any other path.
    public static func instance(ofSocket path: String) -> String? {
        let (prefix, suffix) = ("/run/depot/", ".sock")
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else { return nil }
        let name = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        return name.contains("/") ? nil : name
    }

    /// The state directory's path (see `StateDirectory` for the rules).
    public var defaultStateDirectory: String {
        StateDirectory(environment: environment, userID: userID).path
    }

    /// `$CONFIGURATION_DIRECTORY` (systemd's ConfigurationDirectory=), where depotd looks for depotd.json
    /// when no --config is given; nil when unset.
    public var configurationDirectory: String? {
        firstListed("CONFIGURATION_DIRECTORY")
    }

    private func nonEmpty(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The first non-empty entry of a colon-separated list such as systemd's `RUNTIME_DIRECTORY`
    /// (which lists one directory per `RuntimeDirectory=` entry; the first is ours). nil when there is none,
    /// so `""` and `":"` count as unset.
    private func firstListed(_ name: String) -> String? {
        environment[name]?.split(separator: ":", omittingEmptySubsequences: true).first.map(String.init)
    }

    private func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
