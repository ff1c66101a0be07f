package import ArgumentParser
import DepotWire

#if canImport(Glibc)
import Glibc
#endif

/// The `depotctl` command.
package struct DepotControlCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "depotctl",
        abstract: "Talk to depotd: read the shared collection, load it, remove items, watch every change.",
        discussion: """
            Exit status: 0 on success, 1 when depotd answers with an error, 3 when depotd cannot be reached, \
            closes the connection or does not answer within --timeout, 4 when `status` finds the state not a \
            fresh success or `state` finds a failure, 64 for a usage error. Global options (--socket, -n, --json, \
            --timeout) may come before the command.
            """,
        version: DepotVersion.current,
        subcommands: [
            StateCommand.self, StatusCommand.self, GetCommand.self, LoadCommand.self, PutCommand.self, PatchCommand.self, RemoveCommand.self,
            ApplyCommand.self, EditCommand.self,
            WipeCommand.self, WatchCommand.self, PipelineCommand.self, WhoamiCommand.self, StatsCommand.self, CallCommand.self, SchemaCommand.self,
            SocketCommand.self,
        ]
    )

    package init() {}

    /// Parses the command line with its global options allowed before the subcommand, and runs it.
    /// With --json, errors are JSON on stderr too, usage errors included (see `Output`).
    package static func main() async {
        let arguments = GlobalArguments.hoisted(Array(CommandLine.arguments.dropFirst()))
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        Output.writeErrorsAsJSON(json)
        if let first = arguments.first, !first.hasPrefix("-"), first != "help", !commandNames.contains(first) {
            Output.error("unknown command '\(first)'; the commands are \(commandNames.joined(separator: ", ")) (depotctl --help says what each does)")
            Glibc.exit(ExitCode.validationFailure.rawValue)
        }
        guard json else { return await main(arguments) }
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            // Help, --version and the exits whose error line is already written, as ArgumentParser ends them.
            let code = exitCode(for: error)
            guard code != .success, !(error is ExitCode) else { exit(withError: error) }
            Output.error(message(for: error))
            Glibc.exit(code.rawValue)
        }
    }

    /// `depotctl` alone is a usage error (exit 64), with the usage on stderr, as git and systemctl do.
    package func run() async throws {
        Output.usage(Self.helpMessage())
        throw ExitCode.validationFailure
    }

    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName }
    }
}
