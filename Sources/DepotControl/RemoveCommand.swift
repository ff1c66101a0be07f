import ArgumentParser
import DepotJSON
import DepotWire

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an item from the source, and print the state once the removal is complete.",
        discussion: "If the source refuses, every subscriber sees a failure and then the items as they were; depotctl exits 1."
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    @Flag(help: "Show the collection without the item at once, before the source confirms.")
    var optimistic = false

    @Option(
        name: .customLong("if-match"),
        help: ArgumentHelp("Remove only while the item's etag is this one; otherwise depotd answers conflict and nothing changes.", valueName: "etag")
    )
    var ifMatch: String?

    @Flag(help: "Have the state printed with --json carry the items, not only their count.")
    var items = false

    func run() async throws {
        let state = try await RemoteCall(options: options).run(RemoveRequest(id: id, optimistic: optimistic, ifMatch: ifMatch, items: items)).json
        Output.line(options.json ? state.jsonText : "removed \(id) · " + StateFormatter.statusLine(state))
    }
}
