import DepotServer

/// One integer connection limit as a setting: its config key (the flag is the key in kebab case:
/// `maxMessageBytes`, `--max-message-bytes`), its range and default, where the flag and the file give it, and where
/// it goes in `ConnectionLimits`. The limits are read by one loop over `all`, so a new one is one row here.
struct LimitSetting: Sendable {
    let key: String
    let setting: IntegerSetting
    let flag: any KeyPath<DaemonOptions, Int?> & Sendable
    let file: any KeyPath<ConfigurationFile, Int?> & Sendable
    let limit: any WritableKeyPath<ConnectionLimits, Int> & Sendable

    /// `--max-message-bytes` for `maxMessageBytes`.
    var flagName: String {
        "--" + key.unicodeScalars.map { $0.properties.isUppercase ? "-" + $0.properties.lowercaseMapping : String($0) }.joined()
    }

    static let all: [LimitSetting] = [
        LimitSetting(key: "maxMessageBytes", setting: .maxMessageBytes, flag: \.maxMessageBytes, file: \.maxMessageBytes, limit: \.maxMessageBytes),
        LimitSetting(
            key: "subscriberQueue", setting: .subscriberQueue, flag: \.subscriberQueue, file: \.subscriberQueue, limit: \.subscriberQueueLimit),
        LimitSetting(
            key: "subscriberQueueBytes", setting: .subscriberQueueBytes, flag: \.subscriberQueueBytes, file: \.subscriberQueueBytes,
            limit: \.subscriberQueueBytes),
        LimitSetting(key: "replayStates", setting: .replayStates, flag: \.replayStates, file: \.replayStates, limit: \.replayStates),
        LimitSetting(key: "replayBytes", setting: .replayBytes, flag: \.replayBytes, file: \.replayBytes, limit: \.replayBytes),
        LimitSetting(
            key: "maxBatchRequests", setting: .maxBatchRequests, flag: \.maxBatchRequests, file: \.maxBatchRequests, limit: \.maxBatchRequests),
        LimitSetting(
            key: "maxBatchAnswerBytes", setting: .maxBatchAnswerBytes, flag: \.maxBatchAnswerBytes, file: \.maxBatchAnswerBytes,
            limit: \.maxBatchAnswerBytes),
        LimitSetting(key: "maxConnections", setting: .maxConnections, flag: \.maxConnections, file: \.maxConnections, limit: \.maxConnections),
        LimitSetting(
            key: "maxConnectionsPerUser", setting: .maxConnectionsPerUser, flag: \.maxConnectionsPerUser, file: \.maxConnectionsPerUser,
            limit: \.maxConnectionsPerUser),
        LimitSetting(
            key: "maxPendingRequests", setting: .maxPendingRequests, flag: \.maxPendingRequests, file: \.maxPendingRequests,
            limit: \.maxPendingRequests),
        LimitSetting(
            key: "maxSubscriptions", setting: .maxSubscriptions, flag: \.maxSubscriptions, file: \.maxSubscriptions, limit: \.maxSubscriptions),
        LimitSetting(
            key: "maxUnreadAnswerBytes", setting: .maxUnreadAnswerBytes, flag: \.maxUnreadAnswerBytes, file: \.maxUnreadAnswerBytes,
            limit: \.maxUnreadAnswerBytes),
        LimitSetting(
            key: "maxMemoryPerUser", setting: .maxMemoryPerUser, flag: \.maxMemoryPerUser, file: \.maxMemoryPerUser, limit: \.maxMemoryPerUser),
        LimitSetting(
            key: "maxUnfinishedLineBytes", setting: .maxUnfinishedLineBytes, flag: \.maxUnfinishedLineBytes, file: \.maxUnfinishedLineBytes,
            limit: \.maxUnfinishedLineBytes),
    ]
}
