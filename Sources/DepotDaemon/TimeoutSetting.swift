import DepotFreshness
import DepotHTTPSource
import DepotServer

/// A timeout in seconds, fractions allowed, with its range and default; like `IntegerSetting`, its error says
/// both bounds: `--request-timeout 0 must be a number of seconds between 0.1 and 3600 (default 30)`.
struct TimeoutSetting: Sendable {
    let range: ClosedRange<Double>
    let defaultValue: Duration

    /// Connecting to an HTTP source: TCP and TLS.
    static let connect = TimeoutSetting(range: 0.1...600, defaultValue: HTTPSourceOptions.defaultConnectTimeout)
    /// One whole request to an HTTP source, body and redirects included.
    static let request = TimeoutSetting(range: 0.1...3600, defaultValue: HTTPSourceOptions.defaultRequestTimeout)

    /// The longest wait between retries after failed refreshes.
    static let retryMax = TimeoutSetting(range: 1...86_400, defaultValue: RefreshPolicy.defaultRetryMax)

    /// How long a line may sit unfinished before its connection is closed.
    static let partialLine = TimeoutSetting(range: 0.1...3600, defaultValue: ConnectionLimits.defaultPartialLineTimeout)

    /// `value` as a duration, when it is in range.
    func checked(_ value: Sourced<Double>) throws(ConfigurationError) -> Duration {
        guard value.value.isFinite, range.contains(value.value) else {
            let seconds = Double(defaultValue.components.seconds)
            throw ConfigurationError(
                "\(value.origin.subject) \(Self.format(value.value)) must be a number of seconds between \(Self.format(range.lowerBound)) and \(Self.format(range.upperBound)) (default \(Self.format(seconds)))"
            )
        }
        return .milliseconds(Int64((value.value * 1000).rounded()))
    }

    /// `30` rather than `30.0`; `0.5` as it is.
    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
