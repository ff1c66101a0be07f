import ArgumentParser
import DepotJSON
import DepotRPC

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load the collection from the source again, and print the state it produced."
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let state = try await RemoteCall(options: options).run(DepotProtocol.Method.load)
        Output.line(options.json ? state.jsonText : "loaded · " + StateFormatter.statusLine(state))
    }
}
