#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where depotd keeps what must outlive a run (the demo collection, the on-disk cache), following systemd's
/// and XDG's conventions: `$STATE_DIRECTORY` (systemd's `StateDirectory=`; the first entry of its
/// colon-separated list is ours), else `$XDG_STATE_HOME/depot`, else `/var/lib/depot` for root and
/// `~/.local/state/depot` for others (`/tmp/depot-$UID/.local/state/depot` with no `$HOME`). Empty
/// variables count as unset.
public struct StateDirectory: Sendable, Equatable {
    public let path: String

    /// The state directory for a process with `environment` running as `userID`.
    public init(environment: [String: String], userID: UInt32) {
        func nonEmpty(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        if let listed = environment["STATE_DIRECTORY"]?.split(separator: ":", omittingEmptySubsequences: true).first {
            path = String(listed)
        } else if let home = nonEmpty("XDG_STATE_HOME") {
            path = Self.join(home, "depot")
        } else if userID == 0 {
            path = "/var/lib/depot"
        } else {
            let home = nonEmpty("HOME") ?? RuntimePaths(environment: environment, userID: userID).fallbackDirectory
            path = Self.join(home, ".local/state/depot")
        }
    }

    /// The state directory of this process.
    public static var current: StateDirectory {
        StateDirectory(environment: ProcessEnvironment.variables, userID: getuid())
    }

    /// `name` inside the directory.
    public func file(_ name: String) -> String {
        Self.join(path, name)
    }

    /// Creates the directory, and its missing parents, with mode 0700 (XDG asks the same of
    /// `~/.local/state`); an existing one is left as it is. Errors name the path at fault.
    public func create() throws(SystemError) {
        try Directories.create(path, mode: 0o700)
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
