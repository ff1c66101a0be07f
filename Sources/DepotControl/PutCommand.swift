import ArgumentParser
import DepotJSON
import DepotWire

struct PutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Create or replace an item through the source, and print its etag and the state once the source has it.",
        discussion: """
            The item is a JSON object, read from FILE or standard input; its id member, if there, must be ID, and is set \
            from ID if not. Example: depotctl put 152 item.json --if-absent
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    @Argument(help: "The file holding the item, or - for standard input (the default).")
    var file: String = "-"

    @Flag(name: .customLong("if-absent"), help: "Only create: depotd answers conflict, and changes nothing, when there is an item with this id.")
    var ifAbsent = false

    @OptionGroup var write: WriteOptions

    func validate() throws {
        if ifAbsent, write.ifMatch != nil { throw ValidationError("--if-absent and --if-match cannot both be given") }
    }

    func run() async throws {
        let value = try JSONInput.file(file, what: "the item")
        guard case .object(let item) = value else {
            throw ValidationError("the item must be a JSON object, not \(value.typeNameWithArticle)")
        }
        let request = PutRequest(
            id: .string(id), item: item, ifMatch: write.ifMatch, ifAbsent: ifAbsent, optimistic: write.optimistic, items: write.items)
        let (json, answer) = try await RemoteCall(options: options).run(request)
        Output.line(
            options.json
                ? json.jsonText
                : "\(answer.created ? "created" : "replaced") \(id) · etag \(answer.etag) · " + StateFormatter.statusLine(json["state"] ?? .null))
    }
}
