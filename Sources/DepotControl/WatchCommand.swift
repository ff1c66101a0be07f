import ArgumentParser
import DepotClient
import DepotJSON

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Subscribe and print every state until interrupted.",
        discussion: """
            Prints a status line per state; with --json, each state as one line of JSON (NDJSON), so \
            `depotctl watch --json | jq .seq` works. When this watcher falls behind and states are skipped, \
            a note goes to stderr (and the status line says so).
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let connection = try await options.connect()
        let subscription: DepotSubscription
        do {
            subscription = try await connection.subscribe()
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
        for await change in subscription {
            if options.json {
                if change.skipped > 0 {
                    Output.error("skipped \(change.skipped) states: this watcher fell behind")
                }
                Output.line(change.state.jsonText)
            } else {
                Output.line(StateFormatter.statusLine(change.state, skipped: change.skipped))
            }
        }
        Output.error("depotd closed the connection")
        throw ExitCode(ExitStatus.unavailable)
    }
}
