/// What one inotify event means for the watched file, as `WatchedPath` reads it.
package enum FileChange: Sendable, Equatable {
    /// It is being written in place, or was just created and is being written: read it only once it is closed.
    case writing
    /// It was closed after being written.
    case written
    /// Another file took its name: renamed over it (`mv`, `sed -i`, an editor), linked to it, or a symlink on its
    /// path swapped (the Kubernetes ConfigMap `..data` pattern).
    case replaced
    /// An entry of a directory on a symlinked path changed: the file may now be another one, which only comparing
    /// what the path leads to tells.
    case maybeReplaced
    /// It was deleted or moved away (perhaps only for a moment, as vim does when it writes).
    case removed
    /// Events were lost (the kernel's queue overflowed), or a watched directory itself went away: anything may have
    /// changed, and the watches are set again.
    case unknown
}
