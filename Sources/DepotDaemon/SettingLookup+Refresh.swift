import DepotFreshness
import DepotSources

/// `refreshInterval` as the config file gives it: a number of seconds, or a word (`auto`).
public enum RefreshIntervalText: Sendable, Equatable {
    case seconds(Double)
    case text(String)
}

/// How the collection is kept fresh: `--refresh-interval`, `--refresh-jitter`, `--refresh-when`, `--retry-max` and
/// `--watch-file`, each from its flag, else the config file, else its default.
extension SettingLookup {
    /// The refresh schedule's settings; `source` decides what `auto` follows (an HTTP source's stated lifetimes).
    func refresh(for source: SourceLocation?) throws(ConfigurationError) -> RefreshPolicy {
        var policy = RefreshPolicy()
        if case .http = source { policy.sourceStatesLifetimes = true }
        if let interval = flag(options.refreshInterval.map(RefreshIntervalText.text), "--refresh-interval")
            ?? file(file.refreshInterval, "refreshInterval")
        {
            policy.interval = try Self.interval(interval)
        }
        if let jitter = flag(options.refreshJitter, "--refresh-jitter") ?? file(file.refreshJitter, "refreshJitter") {
            guard jitter.value.isFinite, (0...0.9).contains(jitter.value) else {
                throw ConfigurationError("\(jitter.origin.subject) \(jitter.value) must be a fraction between 0 and 0.9 (default 0.1)")
            }
            policy.jitter = jitter.value
        }
        if let when = flag(options.refreshWhen, "--refresh-when") ?? file(file.refreshWhen, "refreshWhen") {
            guard let parsed = RefreshPolicy.When(rawValue: when.value) else {
                throw ConfigurationError("\(when.origin.quoting(when.value)) is not one of always, subscribed")
            }
            policy.when = parsed
        }
        if let seconds = flag(options.retryMax, "--retry-max") ?? file(file.retryMax, "retryMax") {
            policy.retryMax = try TimeoutSetting.retryMax.checked(seconds)
        }
        return policy
    }

    /// Whether a `file:` source is watched: on unless --no-watch-file or `"watchFile": false`.
    func watchFile() -> Bool {
        options.watchFile ?? file.watchFile ?? true
    }

    /// `auto`, `0` (off), or seconds from 0.1 to a year.
    private static func interval(_ given: Sourced<RefreshIntervalText>) throws(ConfigurationError) -> RefreshPolicy.Interval {
        let seconds: Double?
        let shown: String
        switch given.value {
        case .text(let text) where text == "auto": return .auto
        case .text(let text): (seconds, shown) = (Double(text), "\"\(text)\"")
        case .seconds(let value): (seconds, shown) = (value, "\(value)")
        }
        if let seconds, seconds == 0 { return .off }
        guard let seconds, seconds.isFinite, (0.1...31_536_000).contains(seconds) else {
            throw ConfigurationError(
                "\(given.origin.subject) \(shown) must be auto, 0 (off) or a number of seconds between 0.1 and 31536000 (default auto)")
        }
        return .every(.milliseconds(Int64((seconds * 1000).rounded())))
    }
}
