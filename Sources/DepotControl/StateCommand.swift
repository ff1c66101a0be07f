import ArgumentParser
import DepotJSON
import DepotRPC

struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the current state: its status line and a table of the items."
    )

    @OptionGroup var options: ConnectionOptions

    @Option(name: .customLong("id-field"), help: "The items' id member, for the table. Default: id.")
    var idField = "id"

    func run() async throws {
        let state = try await RemoteCall(options: options).run(DepotProtocol.Method.state)
        if options.json {
            Output.line(state.jsonText)
            return
        }
        Output.line(StateFormatter.statusLine(state))
        if let items = state["items"]?.arrayValue, !items.isEmpty {
            Output.line(StateFormatter.table(items, idField: idField))
        }
    }
}
