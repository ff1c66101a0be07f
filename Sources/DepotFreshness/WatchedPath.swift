import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// A file's path and the directories watched for it: the directory the path names, and — when the path leads
/// elsewhere through symbolic links — the directory of the file it leads to. Watching directories, not the file,
/// is what survives the way files are really written: renamed over, deleted and created again, swapped behind a
/// symlink; a watch on the file itself would follow the old inode away.
///
/// `change(of:in:)` says what an event means for the file: only events for its name count, and, when the path is a
/// symlink, any change of another entry in its directory (which may have swapped what it leads to).
package struct WatchedPath: Sendable, Equatable {
    package let path: String
    /// The directory the path names, and the file's name in it.
    package let directory: String
    package let name: String
    /// The directory and name of the file the path leads to, when it leads elsewhere; nil when the path is the file
    /// itself, or leads nowhere now.
    package let target: (directory: String, name: String)?
    /// True when the path itself is a symbolic link.
    package let isLink: Bool

    /// The path as the file system shows it now.
    package init(_ path: String) {
        self.path = path
        directory = Directories.parent(of: path)
        name = Directories.name(of: path)
        var status = stat()
        isLink = lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
        let real = Files.realPath(of: path)
        if let real, real != path {
            target = (Directories.parent(of: real), Directories.name(of: real))
        } else {
            target = nil
        }
    }

    /// The directories to watch, the path's first.
    package var directories: [String] {
        guard let target, target.directory != directory else { return [directory] }
        return [directory, target.directory]
    }

    /// What `event`, from the watch on `watchedDirectory`, means for the file; nil when nothing.
    ///
    /// `isLinkOrSharedInode` answers, for a file just created under the file's name, whether it is complete already
    /// (a symbolic link, or a hard link to a file with other names) rather than opened to be written.
    package func change(
        of event: InotifyEvent, in watchedDirectory: String, isComplete: (String) -> Bool = WatchedPath.isComplete
    ) -> FileChange? {
        if event.isOverflow || event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF) || event.has(IN_UNMOUNT) {
            return .unknown
        }
        let ours = (watchedDirectory == directory && event.name == name) || (watchedDirectory == target?.directory && event.name == target?.name)
        if ours {
            if event.has(IN_CLOSE_WRITE) { return .written }
            if event.has(IN_MOVED_TO) { return .replaced }
            if event.has(IN_DELETE) || event.has(IN_MOVED_FROM) { return .removed }
            if event.has(IN_CREATE) { return isComplete(watchedDirectory + "/" + event.name) ? .replaced : .writing }
            if event.has(IN_MODIFY) { return .writing }
            return nil
        }
        // Another entry of the path's own directory: when the path is a symlink, that entry may be the one it goes
        // through (`..data` in a ConfigMap), swapped by a rename.
        guard isLink, watchedDirectory == directory, !event.name.isEmpty else { return nil }
        let entryChanged = event.has(IN_MOVED_TO) || event.has(IN_MOVED_FROM) || event.has(IN_CREATE) || event.has(IN_DELETE)
        return entryChanged ? .maybeReplaced : nil
    }

    /// True when `path` is complete as it appears: a symbolic link, or a hard link to a file that has other names
    /// too. A regular file with one name was just opened to be written, and its close will follow.
    package static func isComplete(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return true }
        return (status.st_mode & S_IFMT) == S_IFLNK || status.st_nlink > 1
    }

    package static func == (lhs: WatchedPath, rhs: WatchedPath) -> Bool {
        lhs.path == rhs.path && lhs.directory == rhs.directory && lhs.name == rhs.name && lhs.isLink == rhs.isLink
            && lhs.target?.directory == rhs.target?.directory && lhs.target?.name == rhs.target?.name
    }
}
