import ArgumentParser
import DepotJSON
import DepotRPC
import DepotWire

struct ApplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Put, patch and remove items through the source, all or none, and print the state once the source has them.",
        discussion: """
            FILE holds a JSON array of changes, each {"op": "put", "id", "item", "ifMatch"?, "ifAbsent"?}, {"op": \
            "patch", "id", "patch", "format"?, "ifMatch"?} or {"op": "remove", "id", "ifMatch"?}, made in order in one \
            write to the source; a change that cannot be made fails them all, naming its index. - reads standard input.
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The file holding the changes, or - for standard input (the default).")
    var file: String = "-"

    @Flag(help: "Show the changes to every subscriber at once, pending until the source has them; rolled back if it refuses.")
    var optimistic = false

    @Flag(help: "Have the state printed with --json carry the items, not only their count.")
    var items = false

    func run() async throws {
        let value = try JSONInput.file(file, what: "the changes")
        let changes: [WireChange]
        do {
            changes = try ApplyRequest.changes(decoding: value)
        } catch {
            throw ValidationError("\(file == "-" ? "the changes" : file): \(error.message.dropFirst("Invalid params: ".count))")
        }
        let request = ApplyRequest(changes: changes, optimistic: optimistic, items: items)
        let (json, answer) = try await RemoteCall(options: options).run(request)
        Output.line(
            options.json
                ? json.jsonText
                : "applied \(answer.etags.count) change\(answer.etags.count == 1 ? "" : "s") · " + StateFormatter.statusLine(json["state"] ?? .null))
    }
}
