import ArgumentParser
import DepotJSON
import DepotWire

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one item of the current state."
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    func run() async throws {
        let item = try await RemoteCall(options: options).run(GetRequest(id: id)).result
        Output.line(options.json ? item.jsonText : item.prettyPrinted())
    }
}
