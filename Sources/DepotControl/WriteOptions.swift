import ArgumentParser

/// Options every command that writes an item shares.
struct WriteOptions: ParsableArguments {
    @Option(
        name: .customLong("if-match"),
        help: ArgumentHelp(
            "Write only while the item's etag is this one (the version you read: depotctl get ID --etag); otherwise depotd answers conflict and nothing changes.",
            valueName: "etag"))
    var ifMatch: String?

    @Flag(help: "Show the change to every subscriber at once, pending until the source has it; rolled back alone if the source refuses.")
    var optimistic = false

    @Flag(help: "Have the state printed with --json carry the items, not only their count.")
    var items = false
}
