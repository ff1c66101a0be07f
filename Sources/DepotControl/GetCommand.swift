import ArgumentParser
import DepotJSON
import DepotRPC

struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one item of the current state."
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    func run() async throws {
        let item = try await RemoteCall(options: options).run(DepotProtocol.Method.get, params: ["id": .string(id)])
        Output.line(options.json ? item.jsonText : item.prettyPrinted())
    }
}
