/// A source kept in a file that other programs change: depotd watches the file (inotify, unless watching is off) and
/// loads again when it changes.
public protocol WatchableSource: Source {
    /// The file to watch, absolute.
    var watchedPath: String { get }
}
