import ArgumentParser
import DepotJSON
import DepotWire

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the protocol's OpenRPC document (what rpc.discover answers), as built into depotctl.",
        discussion:
            "It is rpc-schema/openrpc.json of the source this depotctl was built from; `depotctl call rpc.discover` asks the running depotd for its own."
    )

    @Flag(help: "Print it compact, on one line.")
    var json = false

    func run() throws {
        Output.line(json ? ProtocolDocument.value.jsonText : ProtocolDocument.text.trimmingSuffix("\n"))
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
