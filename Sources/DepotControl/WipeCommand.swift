import ArgumentParser
import DepotJSON
import DepotWire

struct WipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe",
        abstract: "Drop the items held in memory and go back to idle (the source is not touched)."
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let state = try await RemoteCall(options: options).run(WipeRequest()).json
        Output.line(options.json ? state.jsonText : "wiped · " + StateFormatter.statusLine(state))
    }
}
