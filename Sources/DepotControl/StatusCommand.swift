import ArgumentParser
import DepotCore
import DepotJSON
import DepotWire

/// `depotctl status`: one line, and an exit status a script or a health check can test, as
/// `systemctl is-active` gives one. Asks `stats`, so the items themselves are never sent.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print one line on the state and exit 0 only when it is a fresh success.",
        discussion: """
            Exit status: 0 when the state is a success whose items are fresh; 4 when it is not (idle, loading, \
            failure, or a success marked stale: the source could not be asked); 3 when depotd cannot be reached. \
            For health checks: `depotctl status >/dev/null || alert`. --quiet prints nothing.
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Flag(name: .shortAndLong, help: "Print nothing; only the exit status tells.")
    var quiet = false

    func run() async throws {
        let (json, stats) = try await RemoteCall(options: options).run(StatsRequest())
        let fresh = stats.status == LoadingState.Status.success.rawValue && stats.stale == false
        if !quiet {
            if options.json {
                let members = ["status", "items", "stale", "seq", "epoch"].compactMap { name in json[name].map { (name, $0) } }
                Output.line(JSONValue.object(JSONObject(members + [("fresh", .bool(fresh))])).jsonText)
            } else {
                Output.line(Self.line(stats))
            }
        }
        if !fresh { throw ExitCode(ExitStatus.notFresh) }
    }

    /// `success · 151 items · fresh · seq 4`, `success · 151 items · stale · seq 9`, `loading · seq 5`.
    static func line(_ stats: DepotStatistics) -> String {
        var parts = [stats.status]
        if let items = stats.items { parts.append(items == 1 ? "1 item" : "\(items) items") }
        if let stale = stats.stale { parts.append(stale ? "stale" : "fresh") }
        parts.append("seq \(stats.seq)")
        return parts.joined(separator: " · ")
    }
}
