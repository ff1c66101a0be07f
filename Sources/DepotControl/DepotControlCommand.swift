public import ArgumentParser

/// The `depotctl` command.
public struct DepotControlCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "depotctl",
        abstract: "Talk to depotd: read the shared collection, load it, remove items, watch every change.",
        discussion: """
            Exit status: 0 on success, 1 when depotd answers with an error, 3 when depotd cannot be reached \
            or closes the connection, 64 for a usage error.
            """,
        subcommands: [
            StateCommand.self, GetCommand.self, LoadCommand.self, RemoveCommand.self,
            WipeCommand.self, WatchCommand.self, PipelineCommand.self, WhoamiCommand.self, StatsCommand.self, CallCommand.self, SchemaCommand.self,
        ]
    )

    public init() {}
}
