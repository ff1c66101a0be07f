public import DepotCore
package import DepotFreshness
package import DepotHTTPSource
public import DepotPlatform
package import DepotPostgresSource
public import DepotServer
public import DepotSources
public import Logging

/// depotd's settings, resolved from flags, then the environment (DEPOT_SOCKET, DEPOT_SOURCE), then the
/// config file, then the defaults — the first that gives a value wins — and checked. An error names where
/// the bad value came from: the flag, the environment variable, or the config file and its key.
public struct DaemonSettings: Sendable, Equatable {
    public var socketPath: String
    /// True when a flag, the environment or the config file named the socket (rather than the default).
    public var socketConfigured = false
    /// nil: the default file in the state directory, seeded with the demo collection.
    public var source: SourceLocation?
    public var stateDirectory: String
    public var idField: String
    /// The limits every connection is held to: one value, which the server swaps whole on a reload.
    public var connectionLimits = ConnectionLimits()
    public var socketMode: UInt32
    public var logLevel: Logger.Level
    public var initialLoad: Bool
    /// How the start-up load uses the cache and the source.
    public var startupStrategy: RetrievalStrategy = .defaultAtStartUp
    /// Whether the last list the source gave is kept in `cachePath`.
    public var cacheEnabled = true
    /// How the source is refreshed in the background (interval, jitter, when, retries).
    package var refresh = RefreshPolicy()
    /// Whether a `file:` source is watched for changes.
    public var watchFile = true
    /// Who may call what; replaced on a reload.
    public var access = AccessPolicy.default
    /// The schema every item a write leaves must fit; nil for none.
    public var itemSchema: ItemSchema?
    /// The largest item a write may leave, as compact JSON.
    public var maxItemBytes = WriteRules.defaultMaxItemBytes
    /// The rules the repository checks writes by.
    public var writeRules: WriteRules {
        WriteRules(validator: itemSchema, maxItemBytes: maxItemBytes)
    }
    /// The on-disk cache: cache.sqlite in the state directory.
    public var cachePath: String { stateDirectory + "/cache.sqlite" }
    /// Where `pipelines.put` stores named pipelines: `pipelines/` in the state directory.
    public var pipelinesDirectory: String { stateDirectory + "/pipelines" }
    /// Where an administrator's read-only named pipelines are: `pipelines/` beside the configuration file; nil
    /// without one.
    public var configuredPipelinesDirectory: String? {
        configFile.map { Directories.parent(of: $0) + "/pipelines" }
    }
    /// How an `http(s)://` source is used: items path, delete URL, headers, timeouts and limits. Resolved (to
    /// the defaults) whatever the source, and used only by an HTTP one.
    package var http = HTTPSourceOptions()
    /// Where a `postgres://` source's password comes from; used only by a PostgreSQL source.
    package var postgresPassword = PostgresPassword.none
    /// Hot standbys of a PostgreSQL source that loads and catch-ups read from.
    package var postgresReplicas: [PostgresAddress] = []
    /// `/tmp/depot-$UID` when the socket, or the state directory of the default collection, is inside it:
    /// a directory in a shared place, which depotd must make sure is its own before using it. nil otherwise.
    public var privateDirectory: String?
    /// The config file the settings were read from, if any: --config, or depotd.json in
    /// $CONFIGURATION_DIRECTORY (systemd's ConfigurationDirectory=) when that file exists.
    public var configFile: String?

    /// The config file depotd reads from $CONFIGURATION_DIRECTORY when no --config is given.
    public static let defaultConfigFileName = "depotd.json"

    /// Resolves the settings. Relative paths in flags and the environment (`--config`, `file:` sources) are
    /// resolved against `workingDirectory`; a relative `file:` source in the config file against the config
    /// file's directory.
    public static func resolve(
        options: DaemonOptions,
        paths: RuntimePaths,
        workingDirectory: String
    ) throws(ConfigurationError) -> DaemonSettings {
        let configPath = try SettingLookup.configPath(options: options, paths: paths, workingDirectory: workingDirectory)
        let file = try configPath.map { path throws(ConfigurationError) in try ConfigurationFile(contentsOf: path) } ?? ConfigurationFile()
        let lookup = SettingLookup(options: options, file: file, configPath: configPath, environment: paths.environment)
        let socket = try lookup.socket()
        let source = try lookup.source(workingDirectory: workingDirectory)
        let cacheEnabled = options.cache ?? file.cache ?? true
        var settings = DaemonSettings(
            socketPath: socket ?? paths.defaultSocketPath,
            source: source,
            stateDirectory: paths.defaultStateDirectory,
            idField: try lookup.idField(),
            socketMode: try lookup.socketMode(default: ServerConfiguration.defaultSocketMode),
            logLevel: try lookup.logLevel(),
            initialLoad: options.initialLoad ?? file.initialLoad ?? true,
            configFile: configPath
        )
        settings.socketConfigured = socket != nil
        settings.http = try lookup.http(credentialsDirectory: paths.environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 })
        settings.postgresPassword = lookup.postgresPassword(workingDirectory: workingDirectory)
        settings.postgresReplicas = try lookup.postgresReplicas(for: source)
        settings.startupStrategy = try lookup.startupStrategy()
        settings.cacheEnabled = cacheEnabled
        settings.refresh = try lookup.refresh(for: source)
        settings.watchFile = lookup.watchFile()
        settings.access = try lookup.access()
        settings.itemSchema = try lookup.itemSchema(workingDirectory: workingDirectory)
        settings.maxItemBytes = try lookup.integer(
            .maxItemBytes, flag: options.maxItemBytes, "--max-item-bytes", file: file.maxItemBytes, "maxItemBytes")
        for row in LimitSetting.all {
            settings.connectionLimits[keyPath: row.limit] = try lookup.integer(
                row.setting, flag: options[keyPath: row.flag], row.flagName, file: file[keyPath: row.file], row.key)
        }
        settings.connectionLimits.partialLineTimeout = try lookup.partialLineTimeout()
        settings.privateDirectory = settings.sharedFallbackDirectory(paths: paths)
        return settings
    }

    /// `/tmp/depot-$UID` when the socket, or the state directory (for the default collection or the cache), is
    /// inside it: a directory in a shared place, which depotd must make sure is its own. nil for root, or when
    /// neither is there.
    private func sharedFallbackDirectory(paths: RuntimePaths) -> String? {
        guard !paths.isRoot else { return nil }
        let fallback = paths.fallbackDirectory
        let usesStateDirectory = source == nil || cacheEnabled
        guard socketPath.hasPrefix(fallback + "/") || (usesStateDirectory && stateDirectory.hasPrefix(fallback + "/")) else { return nil }
        return fallback
    }
}
