#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// What keeps the items fresh, as `stats` shows it beside the source's health (`SourceHealth`): the refresh interval
/// in force and what set it, when the next refresh is due, and whether a file is watched.
public struct FreshnessStatus: Sendable, Equatable {
    /// The interval a refresh follows the last answer by; nil when nothing refreshes on a timer.
    public var interval: Duration?
    /// What set the interval, or why there is none: `setting`, `max-age`, `s-maxage`, `Expires`; `off`, `no-cache`,
    /// `no-store`, `no lifetime`, `not yet known`, or the source's kind (`file`) when it is not refreshed on a timer.
    public var intervalFrom: String
    /// When the next refresh (or retry) is due; nil when none is.
    public var nextRefreshAt: Date?
    /// True when the next refresh is a retry after failures.
    public var retrying: Bool
    /// True when refreshes wait for a subscriber (`--refresh-when subscribed` and none is there).
    public var paused: Bool
    /// The file watched for changes; nil when none is.
    public var watchedFile: String?
    /// Why a file that should be watched is not (its directory is missing, the inotify limit); nil otherwise.
    public var watchProblem: String?

    public init(
        interval: Duration? = nil, intervalFrom: String = "off", nextRefreshAt: Date? = nil, retrying: Bool = false, paused: Bool = false,
        watchedFile: String? = nil, watchProblem: String? = nil
    ) {
        self.interval = interval
        self.intervalFrom = intervalFrom
        self.nextRefreshAt = nextRefreshAt
        self.retrying = retrying
        self.paused = paused
        self.watchedFile = watchedFile
        self.watchProblem = watchProblem
    }
}
