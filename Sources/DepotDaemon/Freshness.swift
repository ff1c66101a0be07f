import DepotCore
import DepotFreshness
import DepotPlatform
import Logging

/// What keeps depotd's collection fresh: the refresh scheduler, and the watch of a `file:` source (the demo
/// collection's too). Both follow a reload: new settings, and a new source, watched instead (or no longer).
final class Freshness: Sendable {
    let scheduler: RefreshScheduler<LoopClock>
    let watcher: FileWatcher<ContinuousClock>

    /// - Parameter clock: the source loop's, where the scheduler runs: it re-arms its timer after every answer of the
    ///   source (every change a feed applies), which then wakes no other thread.
    init(settings: DaemonSettings, source: any Source, repository: Repository, clock: LoopClock, logger: Logger) {
        let path = Self.watchedPath(settings, source)
        scheduler = RefreshScheduler(repository: repository, policy: settings.refresh, clock: clock, logger: logger)
        watcher = FileWatcher(path: path, repository: repository, clock: ContinuousClock(), logger: logger)
    }

    /// The file to watch: a watchable source's (`file:`), unless watching is off.
    static func watchedPath(_ settings: DaemonSettings, _ source: any Source) -> String? {
        guard settings.watchFile, let watchable = source as? any WatchableSource else { return nil }
        return watchable.watchedPath
    }

    /// Follows new settings and the source in force after a reload.
    func apply(_ settings: DaemonSettings, source: any Source) {
        scheduler.update(settings.refresh)
        let path = Self.watchedPath(settings, source)
        // A reload that changes nothing of a watch that works leaves it as it is; one whose watch had failed (or that
        // stops watching after a failure) starts again, and says so.
        let (watchedFile, problem) = watcher.status
        if watchedFile != path || problem != nil {
            watcher.watch(path)
        }
    }

    /// The schedule and the watch, as `stats` shows them.
    var status: FreshnessStatus {
        var status = scheduler.status
        (status.watchedFile, status.watchProblem) = watcher.status
        return status
    }
}
