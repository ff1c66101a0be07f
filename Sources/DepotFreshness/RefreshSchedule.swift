package import DepotCore
import DepotPlatform

/// When to refresh the source in the background, as a value: told what happened — the source answered or failed,
/// the items were dropped, subscribers came or went, the timer fired, a refresh it asked for finished, the settings
/// changed — and when, it says what to do: refresh now, wait until an instant, or wait for news. It keeps one
/// deadline, so retries and the interval never add up.
///
/// - After an answer (a refresh's, or a `load`'s: every answer re-arms), the next refresh comes after the interval in
///   force — the setting, or for `auto` the lifetime the source's answers state — shortened by up to the jitter
///   fraction. The first after a start comes at a random point between a tenth of the interval and all of it (unless
///   the jitter is 0), so a fleet started together spreads over the interval at once, and the small jitter of each
///   later delay keeps it spread.
/// - After a failure, a retry after about 1 s, doubling each time up to `retryMax`, jittered the same way; a
///   `Retry-After` is honoured up to an hour, and lengthened (never shortened) by up to the jitter fraction. The
///   next answer returns to the interval. With the interval `off`, nothing is retried either.
/// - `subscribed`: no timer runs while no subscription exists; when the first arrives and a refresh is overdue, it
///   starts at once.
/// - After a reset (a wipe, a new source) nothing is due until the next answer or failure.
/// - While a refresh it asked for is under way, nothing more is started and no timer is held: its outcome (an answer
///   or a failure, told before the refresh ends) sets the next deadline, which is armed once the refresh has ended.
///   A refresh started before that end would join the one still publishing and ask the source nothing.
///
/// The random draws (in 0..<1) are parameters, as the time is, so every case is tested exactly.
package struct RefreshSchedule<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What to do now.
    package enum Action: Sendable, Equatable {
        /// Start a refresh.
        case refresh
        /// Hold the timer until this instant, then say `timerFired`.
        case wait(until: Instant)
        /// Hold no timer: nothing is due, or nothing may run now.
        case idle
    }

    package private(set) var policy: RefreshPolicy
    /// The lifetime the source's answers last stated; nil when none has.
    package private(set) var lifetime: FreshnessLifetime?
    /// Failures in a row since the last answer.
    package private(set) var failures = 0
    /// When the next refresh is due, whatever the subscribers; nil when none is.
    package private(set) var due: Instant?
    package private(set) var subscribers = 0
    /// True from the refresh this schedule asked for until it ended (`refreshFinished`).
    package private(set) var refreshing = false
    /// The refresh under way has told its outcome: its end keeps the deadline that outcome set.
    private var outcomeTold = false
    /// When the source last answered and the draw of that moment: what a change of settings computes from.
    private var lastAnswer: (at: Instant, draw: Double)?
    /// No interval has been armed since the start yet: the first is spread over the whole interval.
    private var firstSinceStart = true

    package init(policy: RefreshPolicy) {
        self.policy = policy
    }

    /// The interval in force and what set it: `setting`; from the answers, `max-age`, `s-maxage` or `Expires`; or why
    /// there is none: `off`, `no-cache`, `no-store`, `no lifetime`, `not yet known` (`auto` before the first answer),
    /// `source` (`auto`, for a source whose answers state no lifetime: a file, a table, a script).
    package var interval: (duration: Duration?, from: String) {
        switch policy.interval {
        case .off: (nil, "off")
        case .every(let duration): (duration, "setting")
        case .auto where !policy.sourceStatesLifetimes: (nil, "source")
        case .auto: lifetime.map { ($0.duration, $0.origin.rawValue) } ?? (nil, "not yet known")
        }
    }

    /// True when timers wait for a subscriber.
    package var isPaused: Bool {
        policy.when == .subscribed && subscribers == 0
    }

    /// The instant the timer holds now; nil when it holds none.
    package var nextRefresh: Instant? {
        isPaused || refreshing ? nil : due
    }

    /// The source answered (the items, what changed, or "unchanged") at `now`; `stated` is the lifetime its answer
    /// gave, nil when it gave none of its own.
    package mutating func answered(at now: Instant, lifetime stated: FreshnessLifetime?, draw: Double) -> Action {
        if let stated { lifetime = stated }
        failures = 0
        outcomeTold = true
        lastAnswer = (now, draw)
        due = interval.duration.map { now.advanced(by: shortened($0, by: draw, spreading: firstSinceStart)) }
        if due != nil { firstSinceStart = false }
        return action(at: now)
    }

    /// The source failed at `now`; `retryAfter` when it asked not to be asked again for a while.
    package mutating func failed(at now: Instant, retryAfter: Duration?, draw: Double) -> Action {
        failures += 1
        outcomeTold = true
        due = retryDelay(retryAfter: retryAfter, draw: draw).map { now.advanced(by: $0) }
        return action(at: now)
    }

    /// What was known of the source no longer holds (a wipe, another source): nothing is due until it is asked again.
    package mutating func reset() -> Action {
        failures = 0
        lifetime = nil
        lastAnswer = nil
        due = nil
        refreshing = false
        return .idle
    }

    package mutating func subscribersChanged(to count: Int, at now: Instant) -> Action {
        subscribers = count
        return action(at: now)
    }

    package mutating func timerFired(at now: Instant) -> Action {
        action(at: now)
    }

    /// The refresh this schedule asked for finished. Its answer or failure has been told already (and set the
    /// deadline armed now), unless the source was not asked: nothing was held (`idle`: nothing is due until someone
    /// loads), or it joined a load that needed no source (the next is due after the interval).
    package mutating func refreshFinished(at now: Instant, idle: Bool, draw: Double) -> Action {
        guard refreshing else { return action(at: now) }
        refreshing = false
        guard !outcomeTold else { return action(at: now) }
        if idle {
            due = nil
            lastAnswer = nil
        } else {
            due = interval.duration.map { now.advanced(by: shortened($0, by: draw)) }
        }
        return action(at: now)
    }

    /// The settings changed (a reload): the next refresh is the last answer's time plus the new interval, or, while
    /// retrying, stays when it was (none at all with the interval `off`).
    package mutating func policyChanged(to newPolicy: RefreshPolicy, at now: Instant) -> Action {
        policy = newPolicy
        if policy.interval == .off {
            due = nil
        } else if failures == 0, let lastAnswer {
            due = interval.duration.map { lastAnswer.at.advanced(by: shortened($0, by: lastAnswer.draw)) }
        }
        return action(at: now)
    }

    // MARK: Delays

    /// `duration` less a random part of up to the jitter fraction; `spreading` (the first delay after a start), of up
    /// to nine tenths of it, unless the jitter is 0.
    private func shortened(_ duration: Duration, by draw: Double, spreading: Bool = false) -> Duration {
        let fraction = spreading && policy.jitter > 0 ? RefreshPolicy.firstSpread : policy.jitter
        return Self.milliseconds(duration, times: 1 - min(max(draw, 0), 1) * fraction)
    }

    /// `duration` × `factor`, to the millisecond (a schedule needs no finer, and whole milliseconds compare exactly).
    private static func milliseconds(_ duration: Duration, times factor: Double) -> Duration {
        .milliseconds(Int64((Double(duration.wholeMilliseconds) * factor).rounded()))
    }

    /// About 1 s, doubling with each failure up to `retryMax`, shortened by the jitter; at least `retryAfter` (up to
    /// an hour, lengthened by the jitter) when the source asked for it. nil with the interval `off`.
    private func retryDelay(retryAfter: Duration?, draw: Double) -> Duration? {
        guard policy.interval != .off else { return nil }
        let doublings = min(failures - 1, 40)
        var backoff = RefreshPolicy.firstRetry * (1 << Int64(doublings))
        if backoff > policy.retryMax { backoff = policy.retryMax }
        var delay = shortened(backoff, by: draw)
        if let retryAfter {
            let asked = Self.milliseconds(min(retryAfter, RefreshPolicy.longestRetryAfter), times: 1 + min(max(draw, 0), 1) * policy.jitter)
            delay = max(delay, min(asked, RefreshPolicy.longestRetryAfter))
        }
        return delay
    }

    private mutating func action(at now: Instant) -> Action {
        guard !isPaused, !refreshing, let due else { return .idle }
        guard due > now else {
            refreshing = true
            outcomeTold = false
            return .refresh
        }
        return .wait(until: due)
    }
}
