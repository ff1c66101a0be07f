public import ArgumentParser
import DepotPlatform
import DepotPostgresSource
import DepotSources
import DepotSystemd
import DepotWire
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The `depotd` command.
public struct DepotDaemonCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "depotd",
        abstract: "Serve one shared collection to local programs over JSON-RPC on a Unix socket.",
        discussion: """
            depotd loads a collection of items from a source, keeps it in memory, and pushes every change of \
            state (idle, loading, success, failure) to every subscriber. Talk to it with depotctl, socat or any \
            JSON-RPC 2.0 client, one message per line. Settings come from flags, then DEPOT_SOCKET and \
            DEPOT_SOURCE, then --config, then the defaults. SIGTERM or SIGINT stops it cleanly.
            """,
        version: DepotVersion.current
    )

    @OptionGroup public var options: DaemonOptions

    public init() {}

    public func run() async throws {
        let workingDirectory = Self.workingDirectory()
        let settings = try DaemonSettings.resolve(options: options, paths: .current, workingDirectory: workingDirectory)
        if options.printPostgresSetup {
            guard case .postgres(let address)? = settings.source else {
                throw ConfigurationError("--print-postgres-setup needs a postgres:// source; give it with --source or in the config file")
            }
            print(ChangeLogSQL(address: address).setup, terminator: "")
            return
        }
        let level = LogLevelControl(settings.logLevel)
        LoggingSetup.bootstrap(level: level, environment: ProcessEnvironment.variables)
        let daemon = Daemon(options: options, settings: settings, workingDirectory: workingDirectory, level: level, logger: Logger(label: "depotd"))
        try await daemon.run()
    }

    private static func workingDirectory() -> String {
        guard let pointer = getcwd(nil, 0) else { return "/" }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
