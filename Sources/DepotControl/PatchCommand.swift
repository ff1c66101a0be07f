import ArgumentParser
import DepotJSON
import DepotWire

struct PatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "patch",
        abstract: "Change an item by a patch through the source, and print its etag and the state once the source has it.",
        discussion: """
            PATCH is an RFC 7396 merge patch ({"name": "new", "gone": null}), or with --json-patch an RFC 6902 JSON Patch \
            ([{"op": "replace", "path": "/name", "value": "new"}], test included, whole or not at all); - reads it from \
            standard input. Without --if-match, the patch is made to the item as the source holds it then. Example: \
            depotctl patch 25 '{"level": 12}'
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    @Argument(help: "The patch, as JSON, or - for standard input.")
    var patch: String

    @Flag(name: .customLong("json-patch"), help: "The patch is an RFC 6902 JSON Patch, not an RFC 7396 merge patch.")
    var jsonPatch = false

    @OptionGroup var write: WriteOptions

    func run() async throws {
        let value = try JSONInput.argument(patch, what: "the patch")
        let decoded: WireChange.Patch
        if jsonPatch {
            do {
                decoded = .jsonPatch(try JSONPatch(decoding: value))
            } catch {
                throw ValidationError("the patch is not a JSON Patch: \(error)")
            }
        } else {
            decoded = .merge(value)
        }
        let request = PatchRequest(id: .string(id), patch: decoded, ifMatch: write.ifMatch, optimistic: write.optimistic, items: write.items)
        let (json, answer) = try await RemoteCall(options: options).run(request)
        Output.line(options.json ? json.jsonText : "patched \(id) · etag \(answer.etag) · " + StateFormatter.statusLine(json["state"] ?? .null))
    }
}
