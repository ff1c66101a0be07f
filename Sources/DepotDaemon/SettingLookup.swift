import DepotCore
import DepotHTTPSource
import DepotPlatform
import DepotPostgresSource
import DepotServer
import DepotSources
import Foundation
import Logging

/// Where each setting comes from, in order: a flag, then the environment (where there is a variable for it),
/// then the config file, then the default. Every value is kept with its origin (`Sourced`), so an error about
/// it names what to change.
struct SettingLookup {
    let options: DaemonOptions
    let file: ConfigurationFile
    /// The config file the values came from; nil when there is none.
    let configPath: String?
    let environment: [String: String]

    /// The config file: --config (relative to `workingDirectory`), else depotd.json in $CONFIGURATION_DIRECTORY
    /// when that file exists, else none.
    static func configPath(options: DaemonOptions, paths: RuntimePaths, workingDirectory: String) throws(ConfigurationError) -> String? {
        if let path = options.config {
            guard !path.isEmpty else { throw ConfigurationError("--config is empty; give the path of a JSON config file") }
            return absolute(path, in: workingDirectory)
        }
        guard let directory = paths.configurationDirectory else { return nil }
        let candidate = absolute(DaemonSettings.defaultConfigFileName, in: directory)
        return Directories.exists(candidate) ? candidate : nil
    }

    func flag<Value>(_ value: Value?, _ name: String) -> Sourced<Value>? {
        value.map { Sourced(value: $0, origin: .flag(name)) }
    }

    func environment(_ name: String) -> Sourced<String>? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return Sourced(value: value, origin: .environment(name))
    }

    func file<Value>(_ value: Value?, _ key: String) -> Sourced<Value>? {
        guard let configPath else { return nil }
        return value.map { Sourced(value: $0, origin: .configFile(path: configPath, key: key)) }
    }

    // MARK: Settings

    /// How long a line may sit unfinished: a flag, else the config file, else the default.
    func partialLineTimeout() throws(ConfigurationError) -> Duration {
        guard let seconds = flag(options.partialLineTimeout, "--partial-line-timeout") ?? file(file.partialLineTimeout, "partialLineTimeout")
        else { return TimeoutSetting.partialLine.defaultValue }
        return try TimeoutSetting.partialLine.checked(seconds)
    }

    /// Who holds each access level, and who is granted a changing method alone: per level or method, a flag, else the
    /// config file's `access`, else the default.
    func access() throws(ConfigurationError) -> AccessPolicy {
        var policy = AccessPolicy.default
        let levels: [(String, String?, WritableKeyPath<AccessPolicy, [AccessPolicy.Principal]>)] = [
            ("read", options.readAccess, \.read), ("write", options.writeAccess, \.write), ("admin", options.adminAccess, \.admin),
        ]
        for (level, flagValue, path) in levels {
            if let principals = try principals(level, flag: flagValue) { policy[keyPath: path] = principals }
        }
        let methods: [(String, String?)] = [
            ("remove", options.removeAccess), ("put", options.putAccess), ("patch", options.patchAccess), ("apply", options.applyAccess),
        ]
        for (method, flagValue) in methods {
            if let principals = try principals(method, flag: flagValue) { policy.methods[method] = principals }
        }
        return policy
    }

    /// The principals `--NAME-access` or the config file's `access.NAME` lists; nil when neither does.
    private func principals(_ name: String, flag flagValue: String?) throws(ConfigurationError) -> [AccessPolicy.Principal]? {
        let given: Sourced<[String]>? =
            flag(flagValue.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }, "--\(name)-access")
            ?? file(file.access[name], "access")
        guard let given else { return nil }
        var principals: [AccessPolicy.Principal] = []
        for text in given.value {
            do {
                principals.append(try AccessPolicy.Principal(parsing: text))
            } catch {
                throw ConfigurationError("\(given.origin.subject): \(name): \(error)")
            }
        }
        return principals
    }

    /// The socket's path, when a flag, DEPOT_SOCKET or the config file names one.
    func socket() throws(ConfigurationError) -> String? {
        guard let socket = flag(options.socket, "--socket") ?? environment("DEPOT_SOCKET") ?? file(file.socket, "socket") else { return nil }
        guard !socket.value.isEmpty else {
            throw ConfigurationError("\(socket.origin.subject) is empty; give the socket's path, such as /run/depot/depotd.sock")
        }
        return socket.value
    }

    /// The source, when one is named. A config file names its collection relative to itself; flags and the
    /// environment, relative to where depotd runs.
    func source(workingDirectory: String) throws(ConfigurationError) -> SourceLocation? {
        guard let uri = flag(options.source, "--source") ?? environment("DEPOT_SOURCE") ?? file(file.source, "source") else { return nil }
        var base = workingDirectory
        if case .configFile(let path, _) = uri.origin {
            base = Directories.parent(of: path)
        }
        let location: SourceLocation
        do {
            location = try SourceLocation(parsing: uri.value, workingDirectory: base)
        } catch {
            let subject = error.uri.isEmpty ? uri.origin.subject : uri.origin.quoting(error.uri)
            throw ConfigurationError("\(subject) \(error.problem)")
        }
        if case .postgres(let address) = location, address.maxLag != nil {
            throw ConfigurationError(
                "\(uri.origin.quoting(address.description)) has max_lag, which bounds a replica's lag: give it in a --postgres-replica URI, or remove it"
            )
        }
        return location
    }

    /// The hot standbys a PostgreSQL source reads from: --postgres-replica (each), else "postgresReplicas". Each is a
    /// postgres:// URI naming the source's table and columns; none for another source.
    func postgresReplicas(for source: SourceLocation?) throws(ConfigurationError) -> [PostgresAddress] {
        let given =
            flag(options.postgresReplicas.isEmpty ? nil : options.postgresReplicas, "--postgres-replica")
            ?? file(file.postgresReplicas, "postgresReplicas")
        guard let given, !given.value.isEmpty else { return [] }
        guard case .postgres(let primary)? = source else {
            throw ConfigurationError(
                "\(given.origin.subject) names replicas, which only a postgres:// source reads from; remove it or give a postgres:// --source")
        }
        return try given.value.map { text throws(ConfigurationError) in
            let replica: PostgresAddress
            do {
                replica = try PostgresAddress(parsing: text)
            } catch {
                throw ConfigurationError("\(given.origin.quoting(PostgresAddress.redacted(text))) \(error)")
            }
            guard replica.schema == primary.schema, replica.table == primary.table, replica.idColumn == primary.idColumn,
                replica.docColumn == primary.docColumn
            else {
                throw ConfigurationError(
                    "\(given.origin.quoting(replica.description)) names another table or other columns than the source (\(primary)); a replica serves the same table: give it the same table, id_column and doc_column"
                )
            }
            return replica
        }
    }

    /// Where a PostgreSQL source's password comes from: --postgres-password-file (relative to the working
    /// directory), "postgresPasswordFile" (relative to the config file), else the systemd credential, else none.
    func postgresPassword(workingDirectory: String) -> PostgresPassword {
        var path: String?
        if let file = flag(options.postgresPasswordFile, "--postgres-password-file") ?? file(file.postgresPasswordFile, "postgresPasswordFile") {
            var base = workingDirectory
            if case .configFile(let configPath, _) = file.origin {
                base = Directories.parent(of: configPath)
            }
            path = Self.absolute(file.value, in: base)
        }
        return PostgresPassword.resolve(file: path, environment: environment)
    }

    /// The item schema, read and compiled: --item-schema (relative to the working directory), else "itemSchema"
    /// (relative to the config file), else none.
    func itemSchema(workingDirectory: String) throws(ConfigurationError) -> ItemSchema? {
        guard let given = flag(options.itemSchema, "--item-schema") ?? file(file.itemSchema, "itemSchema") else { return nil }
        guard !given.value.isEmpty else { throw ConfigurationError("\(given.origin.subject) is empty; give the path of a JSON Schema file") }
        var base = workingDirectory
        if case .configFile(let configPath, _) = given.origin {
            base = Directories.parent(of: configPath)
        }
        return try ItemSchema(path: Self.absolute(given.value, in: base), subject: given.origin.subject)
    }

    func idField() throws(ConfigurationError) -> String {
        guard let idField = flag(options.idField, "--id-field") ?? file(file.idField, "idField") else { return Repository.defaultIDField }
        guard !idField.value.isEmpty else {
            throw ConfigurationError("\(idField.origin.subject) is empty; give the member that holds each item's id, such as id")
        }
        return idField.value
    }

    /// An integer setting from its flag or config key, checked against its range; its default otherwise.
    func integer(
        _ setting: IntegerSetting, flag flagValue: Int?, _ flagName: String, file fileValue: Int?, _ key: String
    ) throws(ConfigurationError) -> Int {
        guard let value = flag(flagValue, flagName) ?? file(fileValue, key) else { return setting.defaultValue }
        return try setting.checked(value)
    }

    /// The socket file's mode: an octal permission such as `0660`.
    func socketMode(default defaultMode: UInt32) throws(ConfigurationError) -> UInt32 {
        guard let text = flag(options.socketMode, "--socket-mode") ?? file(file.socketMode, "socketMode") else { return defaultMode }
        let isOctal =
            (1...4).contains(text.value.utf8.count)
            && text.value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
        guard isOctal, let mode = UInt32(text.value, radix: 8), mode <= 0o777 else {
            throw ConfigurationError("\(text.origin.quoting(text.value)) is not an octal permission between 0000 and 0777, such as 0660")
        }
        return mode
    }

    func logLevel() throws(ConfigurationError) -> Logger.Level {
        guard let level = flag(options.logLevel, "--log-level") ?? file(file.logLevel, "logLevel") else { return .info }
        guard let parsed = Logger.Level(rawValue: level.value.lowercased()) else {
            let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("\(level.origin.quoting(level.value)) is not one of \(levels)")
        }
        return parsed
    }

    func startupStrategy() throws(ConfigurationError) -> RetrievalStrategy {
        guard let strategy = flag(options.startupStrategy, "--startup-strategy") ?? file(file.startupStrategy, "startupStrategy") else {
            return .defaultAtStartUp
        }
        guard let parsed = RetrievalStrategy(rawValue: strategy.value) else {
            let strategies = RetrievalStrategy.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError("\(strategy.origin.quoting(strategy.value)) is not one of \(strategies)")
        }
        return parsed
    }

    static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
}
