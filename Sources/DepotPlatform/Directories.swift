#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating directories and checking paths, with errors that name the path.
public enum Directories {
    /// Creates `path` and its missing parents; new directories get `mode`, existing ones are left alone.
    public static func create(_ path: String, mode: UInt32) throws(SystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, mode_t(mode)) != 0 && errno != EEXIST {
                throw SystemError("cannot create directory \(current)")
            }
        }
    }

    /// True when something (a file, a directory, a socket, a dangling link) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The parent directory of `path` (`.` for a bare name).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
