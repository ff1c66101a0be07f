import ArgumentParser

/// Measurements of a real depotd, started by this tool on a temporary socket, next to the references.
@main
struct DepotBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depot-bench",
        abstract: "Measure depotd side by side with Redis and the floor; starts everything it needs on temporary sockets.",
        subcommands: [
            RunCommand.self, ReportCommand.self, FloorCommand.self, OptimisticRemoveFanout.self, CacheTimes.self, ParseTimes.self,
            ReadsUnderChangesCommand.self,
        ]
    )
}
