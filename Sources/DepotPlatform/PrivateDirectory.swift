#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory in a shared place such as /tmp that must belong to this user alone before anything is put
/// in it. Anyone may create `/tmp/depot-1000` first, as a directory they own, as a world-writable one, or
/// as a link to somewhere else; a socket or a collection file placed there could then be swapped or read
/// by another user. `ensure` creates the directory with mode 0700, or checks the one that is there.
public enum PrivateDirectory {
    /// Creates `path` (its parent must exist) with mode 0700, or accepts it when it already is a real
    /// directory (not a symbolic link) owned by `userID` that neither its group nor others may write.
    /// - Parameter remedy: what the user can do instead, ending the error ("remove it or set XDG_RUNTIME_DIR").
    public static func ensure(
        _ path: String,
        userID: UInt32 = getuid(),
        remedy: String = "remove it or set XDG_RUNTIME_DIR"
    ) throws(SystemError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw SystemError("cannot create directory \(path)")
        }
        // Checked even when mkdir succeeded: with a umask such as 0077 or 0022 it is 0700, but checking
        // costs nothing and also covers a directory created by someone else between the calls.
        var status = stat()
        guard lstat(path, &status) == 0 else { throw SystemError("cannot use directory \(path)") }
        func refuse(_ reason: String) -> SystemError {
            SystemError(message: "refusing to use \(path): \(reason); \(remedy)")
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: break
        case S_IFLNK: throw refuse("it is a symbolic link, not a directory")
        default: throw refuse("it is not a directory")
        }
        guard status.st_uid == userID else {
            throw refuse("it is owned by uid \(status.st_uid), not by this user (uid \(userID))")
        }
        let mode = FileMode(UInt32(status.st_mode))
        guard mode.bits & 0o022 == 0 else {
            throw refuse("it is writable by others (mode \(mode))")
        }
    }
}
