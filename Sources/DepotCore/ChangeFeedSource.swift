public import Logging

/// A source that brings its changes in by itself while it is the repository's source: a PostgreSQL table's change
/// feed, a script's steps at their times. The daemon runs `followChanges` as one task of its service tree, from the
/// start (or the reload that made this the source) until the source is replaced or depotd stops.
public protocol ChangeFeedSource: Source {
    /// Tells `repository` of the source's changes, waiting on `clock`, until the task is cancelled.
    func followChanges(into repository: Repository, clock: any Clock<Duration>, logger: Logger) async
}
