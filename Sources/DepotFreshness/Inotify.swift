import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// The system calls of an inotify instance, with errors that say what to do: the per-user limits on instances and
/// watches are the usual reasons a watch cannot be set, and each names its sysctl.
enum Inotify {
    /// The events a watched directory reports: its entries written, closed after writing, created, deleted and renamed,
    /// and the directory itself deleted or moved.
    static let directoryEvents = UInt32(
        bitPattern: IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_ONLYDIR)

    /// A new instance's descriptor, non-blocking (it is read on an event loop) and closed on exec.
    static func open() throws(SystemError) -> Int32 {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            let code = errno
            if code == EMFILE {
                throw SystemError(
                    message:
                        "cannot start inotify: this user's inotify instances are used up (fs.inotify.max_user_instances is \(limit("max_user_instances"))); raise it with sysctl, or stop what holds them",
                    code: code)
            }
            throw SystemError("cannot start inotify")
        }
        return descriptor
    }

    /// Watches `directory` on `descriptor`; returns the watch's number.
    static func watch(_ directory: String, on descriptor: Int32) throws(SystemError) -> Int32 {
        let watch = inotify_add_watch(descriptor, directory, directoryEvents)
        guard watch >= 0 else {
            let code = errno
            switch code {
            case ENOENT:
                throw SystemError(message: "cannot watch \(directory): it does not exist", code: code)
            case ENOSPC:
                throw SystemError(
                    message:
                        "cannot watch \(directory): this user's inotify watches are used up (fs.inotify.max_user_watches is \(limit("max_user_watches"))); raise it with sysctl",
                    code: code)
            default:
                throw SystemError("cannot watch \(directory)")
            }
        }
        return watch
    }

    static func unwatch(_ watch: Int32, on descriptor: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// A limit of /proc/sys/fs/inotify, as the file says it; "?" when it cannot be read.
    private static func limit(_ name: String) -> String {
        guard let bytes = try? Files.readAll("/proc/sys/fs/inotify/\(name)") else { return "?" }
        return String(decoding: bytes, as: UTF8.self).filter { $0.isNumber }
    }
}
