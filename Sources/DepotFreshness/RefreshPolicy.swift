/// How depotd keeps the items fresh on a timer: `--refresh-interval`, `--refresh-jitter`, `--refresh-when` and
/// `--retry-max` (`refreshInterval`, `refreshJitter`, `refreshWhen`, `retryMax` in depotd.json), with what the
/// source is, which decides what `auto` means.
package struct RefreshPolicy: Sendable, Equatable {
    /// The interval a source is refetched after its last answer.
    package enum Interval: Sendable, Equatable {
        /// For a source whose answers state a lifetime (HTTP), that lifetime; for others, no refresh on a timer.
        case auto
        /// This long, whatever the source says.
        case every(Duration)
        /// Never on a timer, and no retries after a failure either (`0`).
        case off
    }

    /// When the timers run.
    package enum When: String, Sendable, CaseIterable {
        /// Always.
        case always
        /// Only while at least one subscription exists.
        case subscribed
    }

    package var interval: Interval
    /// Each delay is shortened by a random part of up to this fraction (0 to 0.9), so daemons started together do
    /// not ask in lockstep.
    package var jitter: Double
    package var when: When
    /// The longest delay between retries after failures (a `Retry-After` may ask for longer, up to an hour).
    package var retryMax: Duration
    /// Whether the source's answers state their lifetime (an HTTP source): `auto` follows them. For a file, a table
    /// or a script, `auto` is no refresh on a timer.
    package var sourceStatesLifetimes: Bool

    package static let defaultJitter = 0.1
    package static let defaultRetryMax = Duration.seconds(300)
    /// The first retry after a failure comes after about this long; each next one after twice the last.
    package static let firstRetry = Duration.seconds(1)
    /// The first refresh after a start is shortened by a random part of up to this fraction of the interval (the most
    /// the jitter may be), so a fleet started together is spread over the interval from its first refresh on.
    package static let firstSpread = 0.9
    /// A `Retry-After` is honoured up to this long.
    package static let longestRetryAfter = Duration.seconds(3600)

    package init(
        interval: Interval = .auto, jitter: Double = Self.defaultJitter, when: When = .always, retryMax: Duration = Self.defaultRetryMax,
        sourceStatesLifetimes: Bool = false
    ) {
        self.interval = interval
        self.jitter = jitter
        self.when = when
        self.retryMax = retryMax
        self.sourceStatesLifetimes = sourceStatesLifetimes
    }
}
