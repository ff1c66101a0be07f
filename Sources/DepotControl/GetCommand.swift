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

    @Flag(help: "Print the item's etag too (with --json, {\"item\", \"etag\"}): what --if-match of a write names this version by.")
    var etag = false

    func run() async throws {
        let answer = try await RemoteCall(options: options).run(GetRequest(id: id, meta: etag)).result
        if options.json {
            Output.line(answer.jsonText)
        } else if etag, let item = answer["item"], case .string(let tag)? = answer["etag"] {
            Output.line(item.prettyPrinted())
            Output.line("etag \(tag)")
        } else {
            Output.line(answer.prettyPrinted())
        }
    }
}
