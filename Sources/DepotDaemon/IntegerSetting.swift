import DepotCore
import DepotHTTPSource
import DepotRPC
import DepotServer

/// An integer setting's accepted range and default, and the error for a value outside the range, which
/// says both bounds so a user need not guess: `--subscriber-queue 0 must be an integer between 1 and
/// 1048576 (default 256)`.
struct IntegerSetting: Sendable {
    let range: ClosedRange<Int>
    let defaultValue: Int

    /// The longest request line: enough for a small request, at most 1 GiB.
    static let maxMessageBytes = IntegerSetting(range: 64...1_073_741_824, defaultValue: ConnectionLimits.defaultMaxMessageBytes)
    /// States a subscriber may fall behind by: at least one, at most 1 Mi.
    static let subscriberQueue = IntegerSetting(range: 1...1_048_576, defaultValue: ConnectionLimits.defaultSubscriberQueueLimit)
    /// The bytes a subscriber may fall behind by: at least 1 KiB, at most 1 TiB.
    static let subscriberQueueBytes = IntegerSetting(range: 1024...(1 << 40), defaultValue: ConnectionLimits.defaultSubscriberQueueBytes)
    /// States the replay ring keeps: at least one, at most 1 Mi.
    static let replayStates = IntegerSetting(range: 1...1_048_576, defaultValue: ConnectionLimits.defaultReplayStates)
    /// Bytes the replay ring keeps: none (resume only when nothing was missed) to 1 TiB.
    static let replayBytes = IntegerSetting(range: 0...(1 << 40), defaultValue: ConnectionLimits.defaultReplayBytes)
    /// Requests in one batch: at least one, at most 64 Ki.
    static let maxBatchRequests = IntegerSetting(range: 1...65_536, defaultValue: IncomingMessage.defaultMaxBatchRequests)
    /// Connections at once, in all and per user: at least one, at most 1 Mi.
    static let maxConnections = IntegerSetting(range: 1...1_048_576, defaultValue: ConnectionLimits.defaultMaxConnections)
    static let maxConnectionsPerUser = IntegerSetting(range: 1...1_048_576, defaultValue: ConnectionLimits.defaultMaxConnectionsPerUser)
    /// Bytes of one batch's answers: at least 1 KiB, at most 1 GiB.
    static let maxBatchAnswerBytes = IntegerSetting(range: 1024...1_073_741_824, defaultValue: ConnectionLimits.defaultMaxBatchAnswerBytes)

    /// Per connection: requests waiting for a mutation, and subscriptions: at least one, at most 64 Ki.
    static let maxPendingRequests = IntegerSetting(range: 1...65_536, defaultValue: ConnectionLimits.defaultMaxPendingRequests)
    static let maxSubscriptions = IntegerSetting(range: 1...65_536, defaultValue: ConnectionLimits.defaultMaxSubscriptions)
    /// Memory bounds: at least 64 KiB, at most 1 TiB.
    static let maxUnreadAnswerBytes = IntegerSetting(range: 65_536...(1 << 40), defaultValue: ConnectionLimits.defaultMaxUnreadAnswerBytes)
    static let maxMemoryPerUser = IntegerSetting(range: 65_536...(1 << 40), defaultValue: ConnectionLimits.defaultMaxMemoryPerUser)
    static let maxUnfinishedLineBytes = IntegerSetting(range: 65_536...(1 << 40), defaultValue: ConnectionLimits.defaultMaxUnfinishedLineBytes)

    /// The largest body an HTTP source reads: at least 1 KiB, at most 1 GiB.
    static let maxResponseBytes = IntegerSetting(range: 1024...1_073_741_824, defaultValue: HTTPSourceOptions.defaultMaxResponseBytes)
    /// The largest item a write may leave, as compact JSON: at least 64 bytes, at most 1 GiB.
    static let maxItemBytes = IntegerSetting(range: 64...1_073_741_824, defaultValue: WriteRules.defaultMaxItemBytes)
    /// Redirects an HTTP source follows: none to 20.
    static let maxRedirects = IntegerSetting(range: 0...20, defaultValue: HTTPSourceOptions.defaultMaxRedirects)

    /// `value` when it is in range.
    func checked(_ value: Sourced<Int>) throws(ConfigurationError) -> Int {
        guard range.contains(value.value) else { throw outOfRange(String(value.value), from: value.origin) }
        return value.value
    }

    /// The error for `literal`, an integer outside the range (or too large for an `Int`).
    func outOfRange(_ literal: String, from origin: SettingOrigin) -> ConfigurationError {
        ConfigurationError(
            "\(origin.subject) \(literal) must be an integer between \(range.lowerBound) and \(range.upperBound) (default \(defaultValue))")
    }
}
