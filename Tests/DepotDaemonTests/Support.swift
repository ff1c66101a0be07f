import ArgumentParser
import DepotDaemon
import DepotPlatform
import Testing

/// Parses `arguments` as depotd's flags and resolves them against `environment`, a non-root uid and
/// `workingDirectory`; nothing is read from this process's environment or working directory.
func resolve(
    _ arguments: [String],
    environment: [String: String] = [:],
    userID: UInt32 = 1000,
    workingDirectory: String = "/work"
) throws -> DaemonSettings {
    let options = try DaemonOptions.parse(arguments)
    return try DaemonSettings.resolve(
        options: options,
        paths: RuntimePaths(environment: environment, userID: userID),
        workingDirectory: workingDirectory
    )
}

/// The `ConfigurationError` that resolving `arguments` throws; records an issue when it succeeds or throws something else.
func configurationError(
    _ arguments: [String],
    environment: [String: String] = [:],
    workingDirectory: String = "/work",
    sourceLocation: SourceLocation = #_sourceLocation
) -> ConfigurationError? {
    do {
        let settings = try resolve(arguments, environment: environment, workingDirectory: workingDirectory)
        Issue.record("expected a ConfigurationError, got \(settings)", sourceLocation: sourceLocation)
        return nil
    } catch let error as ConfigurationError {
        return error
    } catch {
        Issue.record("expected a ConfigurationError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The `ConfigurationError` that parsing `text` as a config file throws.
func parseError(_ text: String, path: String = "/etc/depot.json", sourceLocation: SourceLocation = #_sourceLocation) -> ConfigurationError? {
    do {
        let file = try ConfigurationFile(parsing: Array(text.utf8), path: path)
        Issue.record("expected a ConfigurationError, got \(file)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
