import ArgumentParser
import DepotJSON
import DepotWire

struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Print who depotd takes this process for (uid, groups) and what it may do.",
        discussion:
            "The levels: read (state, get, watch), write (load, remove, put, patch, apply, edit), admin (wipe, pipelines). depotd's \"access\" setting grants them, and may grant remove, put, patch or apply one by one."
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let (json, caller) = try await RemoteCall(options: options).run(WhoamiRequest())
        if options.json {
            Output.line(json.jsonText)
            return
        }
        let user = caller.user.map { "\($0) (uid \(caller.uid))" } ?? "uid \(caller.uid)"
        let levels = caller.levels.isEmpty ? "none" : caller.levels.map(\.rawValue).joined(separator: ", ")
        let methods = caller.methods.isEmpty ? "" : " · and: \(caller.methods.joined(separator: ", "))"
        Output.line("\(user), gid \(caller.gid), groups \(caller.groups.map(String.init).joined(separator: ",")) · may: \(levels)\(methods)")
    }
}
