public import DepotCore
public import DepotHTTPSource
public import DepotPlatform
import DepotServer
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
    public var maxMessageBytes: Int
    public var subscriberQueue: Int
    public var maxBatchRequests: Int
    public var socketMode: UInt32
    public var logLevel: Logger.Level
    public var initialLoad: Bool
    /// How the start-up load uses the cache and the source.
    public var startupStrategy: RetrievalStrategy = .defaultAtStartUp
    /// Whether the last list the source gave is kept in `cachePath`.
    public var cacheEnabled = true
    /// The on-disk cache: cache.sqlite in the state directory.
    public var cachePath: String { stateDirectory + "/cache.sqlite" }
    /// How an `http(s)://` source is used: items path, delete URL, headers, timeouts and limits. Resolved (to
    /// the defaults) whatever the source, and used only by an HTTP one.
    public var http = HTTPSourceOptions()
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
        var configPath: String?
        if let path = options.config {
            guard !path.isEmpty else { throw ConfigurationError("--config is empty; give the path of a JSON config file") }
            configPath = absolute(path, in: workingDirectory)
        } else if let directory = paths.configurationDirectory {
            let candidate = absolute(defaultConfigFileName, in: directory)
            if Directories.exists(candidate) {
                configPath = candidate
            }
        }
        let file = try configPath.map { path throws(ConfigurationError) in try ConfigurationFile(contentsOf: path) } ?? ConfigurationFile()
        let environment = paths.environment
        func fromEnvironment(_ name: String) -> Sourced<String>? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return Sourced(value: value, origin: .environment(name))
        }
        func fromFlag<Value>(_ value: Value?, _ name: String) -> Sourced<Value>? {
            value.map { Sourced(value: $0, origin: .flag(name)) }
        }
        func fromFile<Value>(_ value: Value?, _ key: String) -> Sourced<Value>? {
            guard let configPath else { return nil }
            return value.map { Sourced(value: $0, origin: .configFile(path: configPath, key: key)) }
        }

        let socketPath: String
        let socketSetting = fromFlag(options.socket, "--socket") ?? fromEnvironment("DEPOT_SOCKET") ?? fromFile(file.socket, "socket")
        if let socket = socketSetting {
            guard !socket.value.isEmpty else {
                throw ConfigurationError("\(socket.origin.subject) is empty; give the socket's path, such as /run/depot/depotd.sock")
            }
            socketPath = socket.value
        } else {
            socketPath = paths.defaultSocketPath
        }

        var source: SourceLocation?
        if let uri = fromFlag(options.source, "--source") ?? fromEnvironment("DEPOT_SOURCE") ?? fromFile(file.source, "source") {
            // A config file names its collection relative to itself; flags and the environment, to where depotd runs.
            var base = workingDirectory
            if case .configFile(let path, _) = uri.origin {
                base = Directories.parent(of: path)
            }
            do {
                source = try SourceLocation(parsing: uri.value, workingDirectory: base)
            } catch {
                let subject = error.uri.isEmpty ? uri.origin.subject : uri.origin.quoting(error.uri)
                throw ConfigurationError("\(subject) \(error.problem)")
            }
        }

        let idField = fromFlag(options.idField, "--id-field") ?? fromFile(file.idField, "idField")
        if let idField, idField.value.isEmpty {
            throw ConfigurationError("\(idField.origin.subject) is empty; give the member that holds each item's id, such as id")
        }

        let maxMessageBytes = try (fromFlag(options.maxMessageBytes, "--max-message-bytes") ?? fromFile(file.maxMessageBytes, "maxMessageBytes"))
            .map { value throws(ConfigurationError) in try IntegerSetting.maxMessageBytes.checked(value) }
        let subscriberQueue = try (fromFlag(options.subscriberQueue, "--subscriber-queue") ?? fromFile(file.subscriberQueue, "subscriberQueue"))
            .map { value throws(ConfigurationError) in try IntegerSetting.subscriberQueue.checked(value) }
        let maxBatchRequests = try (fromFlag(options.maxBatchRequests, "--max-batch-requests") ?? fromFile(file.maxBatchRequests, "maxBatchRequests"))
            .map { value throws(ConfigurationError) in try IntegerSetting.maxBatchRequests.checked(value) }

        let socketMode = try (fromFlag(options.socketMode, "--socket-mode") ?? fromFile(file.socketMode, "socketMode"))
            .map { value throws(ConfigurationError) in try parseMode(value) }

        var logLevel = Logger.Level.info
        if let level = fromFlag(options.logLevel, "--log-level") ?? fromFile(file.logLevel, "logLevel") {
            guard let parsed = Logger.Level(rawValue: level.value.lowercased()) else {
                let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("\(level.origin.quoting(level.value)) is not one of \(levels)")
            }
            logLevel = parsed
        }

        var startupStrategy = RetrievalStrategy.defaultAtStartUp
        if let strategy = fromFlag(options.startupStrategy, "--startup-strategy") ?? fromFile(file.startupStrategy, "startupStrategy") {
            guard let parsed = RetrievalStrategy(rawValue: strategy.value) else {
                let strategies = RetrievalStrategy.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("\(strategy.origin.quoting(strategy.value)) is not one of \(strategies)")
            }
            startupStrategy = parsed
        }

        let http = try resolveHTTP(
            options: options,
            file: file,
            configPath: configPath,
            credentialsDirectory: environment["CREDENTIALS_DIRECTORY"].flatMap { $0.isEmpty ? nil : $0 }
        )

        let stateDirectory = paths.defaultStateDirectory
        let cacheEnabled = options.cache ?? file.cache ?? true
        var privateDirectory: String?
        if !paths.isRoot {
            let fallback = paths.fallbackDirectory
            let usesStateDirectory = source == nil || cacheEnabled
            if socketPath.hasPrefix(fallback + "/") || (usesStateDirectory && stateDirectory.hasPrefix(fallback + "/")) {
                privateDirectory = fallback
            }
        }

        var settings = DaemonSettings(
            socketPath: socketPath,
            source: source,
            stateDirectory: stateDirectory,
            idField: idField?.value ?? Repository.defaultIDField,
            maxMessageBytes: maxMessageBytes ?? IntegerSetting.maxMessageBytes.defaultValue,
            subscriberQueue: subscriberQueue ?? IntegerSetting.subscriberQueue.defaultValue,
            maxBatchRequests: maxBatchRequests ?? IntegerSetting.maxBatchRequests.defaultValue,
            socketMode: socketMode ?? ServerConfiguration.defaultSocketMode,
            logLevel: logLevel,
            initialLoad: options.initialLoad ?? file.initialLoad ?? true,
            privateDirectory: privateDirectory,
            configFile: configPath
        )
        settings.socketConfigured = socketSetting != nil
        settings.http = http
        settings.startupStrategy = startupStrategy
        settings.cacheEnabled = cacheEnabled
        return settings
    }

    /// The HTTP source's settings: flags, then the config file, then the defaults. Headers come from the config
    /// file only, and secrets from files it names, never from a flag: command lines are visible to every user.
    static func resolveHTTP(
        options: DaemonOptions,
        file: ConfigurationFile,
        configPath: String?,
        credentialsDirectory: String?
    ) throws(ConfigurationError) -> HTTPSourceOptions {
        func fromFile<Value>(_ value: Value?, _ key: String) -> Sourced<Value>? {
            guard let configPath else { return nil }
            return value.map { Sourced(value: $0, origin: .configFile(path: configPath, key: key)) }
        }
        func fromFlag<Value>(_ value: Value?, _ name: String) -> Sourced<Value>? {
            value.map { Sourced(value: $0, origin: .flag(name)) }
        }
        var http = HTTPSourceOptions()
        if let path = fromFlag(options.itemsPath, "--items-path") ?? fromFile(file.itemsPath, "itemsPath") {
            do {
                http.itemsPath = try ItemsPath(parsing: path.value)
            } catch {
                throw ConfigurationError("\(path.origin.quoting(path.value)) \(error)")
            }
        }
        if let template = fromFlag(options.deleteURL, "--delete-url") ?? fromFile(file.deleteURL, "deleteURL") {
            do {
                http.deleteURL = try ItemURLTemplate(parsing: template.value)
            } catch {
                throw ConfigurationError("\(template.origin.quoting(HTTPAddress.redacted(template.value))) \(error)")
            }
        }
        if let seconds = fromFlag(options.connectTimeout, "--connect-timeout") ?? fromFile(file.connectTimeout, "connectTimeout") {
            http.connectTimeout = try TimeoutSetting.connect.checked(seconds)
        }
        if let seconds = fromFlag(options.requestTimeout, "--request-timeout") ?? fromFile(file.requestTimeout, "requestTimeout") {
            http.requestTimeout = try TimeoutSetting.request.checked(seconds)
        }
        if let bytes = fromFlag(options.maxResponseBytes, "--max-response-bytes") ?? fromFile(file.maxResponseBytes, "maxResponseBytes") {
            http.maxResponseBytes = try IntegerSetting.maxResponseBytes.checked(bytes)
        }
        if let count = fromFlag(options.maxRedirects, "--max-redirects") ?? fromFile(file.maxRedirects, "maxRedirects") {
            http.maxRedirects = try IntegerSetting.maxRedirects.checked(count)
        }
        guard let configPath else { return http }
        let configDirectory = Directories.parent(of: configPath)
        var seen: [String: String] = [:]
        func claim(_ name: String, _ key: String) throws(ConfigurationError) {
            if let earlier = seen.updateValue(key, forKey: name.lowercased()) {
                throw ConfigurationError("config file \(configPath): the header \(name) is given twice (in \"\(earlier)\" and \"\(key)\"); keep one")
            }
        }
        for header in file.headers {
            try claim(header.name, "headers")
            do {
                http.headers.append(try HeaderField(name: header.name, value: header.value))
            } catch {
                // The problem never quotes the value.
                throw ConfigurationError("config file \(configPath): \"headers\": \(header.name) \(error)")
            }
        }
        for header in file.headerFiles {
            try claim(header.name, "headerFiles")
            guard !header.value.isEmpty else {
                throw ConfigurationError(
                    "config file \(configPath): \"headerFiles\": \(header.name) names no file; give the path of the file that holds its value")
            }
            let path = absolute(header.value, in: configDirectory)
            http.secretHeaders.append(try secretHeader(header.name, path: path, origin: .file, key: "headerFiles", configPath: configPath))
        }
        for header in file.headerCredentials {
            try claim(header.name, "headerCredentials")
            let credential = header.value
            guard !credential.isEmpty, !credential.contains("/"), credential != ".", credential != ".." else {
                throw ConfigurationError(
                    "config file \(configPath): \"headerCredentials\": \(header.name) names the credential \"\(credential)\"; a credential's name is a file name, as in LoadCredential=depot-token:/etc/depot/token"
                )
            }
            guard let credentialsDirectory else {
                throw ConfigurationError(
                    "config file \(configPath): \"headerCredentials\" needs $CREDENTIALS_DIRECTORY, which systemd sets for a service "
                        + "with LoadCredential=\(credential):/path/to/file; outside systemd, use \"headerFiles\" instead"
                )
            }
            let path = absolute(credential, in: credentialsDirectory)
            http.secretHeaders.append(
                try secretHeader(header.name, path: path, origin: .credential(credential), key: "headerCredentials", configPath: configPath))
        }
        return http
    }

    private static func secretHeader(
        _ name: String, path: String, origin: SecretHeader.Origin, key: String, configPath: String
    ) throws(ConfigurationError) -> SecretHeader {
        do {
            return try SecretHeader(name: name, path: path, origin: origin)
        } catch {
            throw ConfigurationError("config file \(configPath): \"\(key)\": \(error)")
        }
    }

    /// An octal mode such as `0660` or `660`: one to four octal digits, no sign or prefix, at most 0777.
    static func parseMode(_ text: Sourced<String>) throws(ConfigurationError) -> UInt32 {
        let isOctal =
            (1...4).contains(text.value.utf8.count)
            && text.value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
        guard isOctal, let mode = UInt32(text.value, radix: 8), mode <= 0o777 else {
            throw ConfigurationError("\(text.origin.quoting(text.value)) is not an octal permission between 0000 and 0777, such as 0660")
        }
        return mode
    }

    private static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
}
