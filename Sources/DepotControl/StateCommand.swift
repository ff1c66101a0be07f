import ArgumentParser
import DepotJSON
import DepotOperators
import DepotWire

struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the current state: its status line and a table of the items.",
        discussion: "Exits 4 when the state is a failure (after printing it); `depotctl status` tells a fresh success from the rest."
    )

    @OptionGroup var options: ConnectionOptions

    @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions

    @Option(name: .customLong("id-field"), help: "The items' id member, for the table.")
    var idField = "id"

    func run() async throws {
        let pipeline = try pipelineOptions.reference()
        if pipelineOptions.printPipeline {
            Output.line(pipeline?.json.prettyPrinted() ?? "[]")
            return
        }
        let (json, state) = try await RemoteCall(options: options).run(StateRequest(pipeline: pipeline))
        if options.json {
            Output.line(json.jsonText)
        } else {
            Output.line(StateFormatter.statusLine(json))
            if let items = state.items, !items.isEmpty {
                Output.line(StateFormatter.table(items, idField: idField))
            }
        }
        // A failure is printed like any state, and told by the exit status too.
        if json[StateMember.status]?.stringValue == StateStatus.failure.rawValue { throw ExitCode(ExitStatus.notFresh) }
    }
}
