import DepotCore
import DepotPlatform
import DepotServer
import DepotSources
import Logging

/// depotd's settings, resolved from flags, then the environment (DEPOT_SOCKET, DEPOT_SOURCE), then the
/// config file, then the defaults — the first that gives a value wins — and checked.
public struct DaemonSettings: Sendable, Equatable {
    public var socketPath: String
    /// nil: the default file in the state directory, seeded with the demo collection.
    public var source: SourceLocation?
    public var stateDirectory: String
    public var idField: String
    public var maxMessageBytes: Int
    public var subscriberQueue: Int
    public var socketMode: UInt32
    public var logLevel: Logger.Level
    public var initialLoad: Bool

    public static func resolve(
        options: DaemonOptions,
        paths: RuntimePaths,
        workingDirectory: String
    ) throws(ConfigurationError) -> DaemonSettings {
        let file = try options.config.map { path throws(ConfigurationError) in try ConfigurationFile(contentsOf: path) } ?? ConfigurationFile()
        let environment = paths.environment
        func nonEmpty(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }

        let socketPath = options.socket ?? nonEmpty("DEPOT_SOCKET") ?? file.socket ?? paths.defaultSocketPath
        guard !socketPath.isEmpty else { throw ConfigurationError("the socket path is empty; give --socket a path") }

        var source: SourceLocation?
        if let uri = options.source ?? nonEmpty("DEPOT_SOURCE") ?? file.source {
            do {
                source = try SourceLocation(parsing: uri, workingDirectory: workingDirectory)
            } catch {
                throw ConfigurationError(error.description)
            }
        }

        let idField = options.idField ?? file.idField ?? Repository.defaultIDField
        guard !idField.isEmpty else { throw ConfigurationError("the id field is empty; give --id-field a member name such as id") }

        let maxMessageBytes = options.maxMessageBytes ?? file.maxMessageBytes ?? ConnectionLimits.defaultMaxMessageBytes
        guard maxMessageBytes >= 64 else {
            throw ConfigurationError("max message bytes \(maxMessageBytes) is too small to carry a request; use at least 64 (default 1048576)")
        }

        let subscriberQueue = options.subscriberQueue ?? file.subscriberQueue ?? ConnectionLimits.defaultSubscriberQueueLimit
        guard subscriberQueue >= 1 else {
            throw ConfigurationError("subscriber queue \(subscriberQueue) must be at least 1 (default 256)")
        }

        let modeText = options.socketMode ?? file.socketMode
        let socketMode = try modeText.map(parseMode) ?? ServerConfiguration.defaultSocketMode

        let levelText = options.logLevel ?? file.logLevel ?? "info"
        guard let logLevel = Logger.Level(rawValue: levelText.lowercased()) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("log level \"\(levelText)\" is not one of \(levels)")
        }

        return DaemonSettings(
            socketPath: socketPath,
            source: source,
            stateDirectory: paths.defaultStateDirectory,
            idField: idField,
            maxMessageBytes: maxMessageBytes,
            subscriberQueue: subscriberQueue,
            socketMode: socketMode,
            logLevel: logLevel,
            initialLoad: options.noInitialLoad ? false : (file.initialLoad ?? true)
        )
    }

    /// An octal mode such as `0660` or `660`.
    static func parseMode(_ text: String) throws(ConfigurationError) -> UInt32 {
        guard !text.isEmpty, let mode = UInt32(text, radix: 8), mode <= 0o777 else {
            throw ConfigurationError("socket mode \"\(text)\" is not an octal permission between 0000 and 0777, such as 0660")
        }
        return mode
    }
}
