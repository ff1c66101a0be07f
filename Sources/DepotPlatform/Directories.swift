#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating directories and checking paths, with errors that name the path.
public enum Directories {
    /// Creates `path` and its missing parents; new directories get `mode`, existing ones are left alone.
    /// Something that is not a directory (a file, a dangling link) at `path` or at one of its parents is an
    /// error naming it, rather than passing for the directory.
    public static func create(_ path: String, mode: UInt32) throws(SystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            guard mkdir(current, mode_t(mode)) != 0 else { continue }
            guard errno == EEXIST else { throw SystemError("cannot create directory \(current)") }
            // EEXIST says only that something is there; stat (following links) says whether it is a directory.
            var status = stat()
            guard stat(current, &status) == 0 else { throw SystemError("cannot create directory \(current)") }
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw SystemError(message: "cannot create directory \(current): it exists and is not a directory", code: ENOTDIR)
            }
        }
    }

    /// True when something (a file, a directory, a socket, a dangling link) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The parent directory of `path` (`.` for a bare name); trailing slashes are ignored, so the parent
    /// of `/run/depot/` is `/run`.
    public static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") {
            trimmed = trimmed.dropLast()
        }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        var directory = trimmed[..<slash]
        while directory.hasSuffix("/") {
            directory = directory.dropLast()
        }
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The last component of `path`: `items.json` for `/srv/depot/items.json`.
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
