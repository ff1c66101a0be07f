import ArgumentParser
import DepotJSON
import DepotOperators
import DepotPlatform
import DepotWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        let fresh = stats.status == StateStatus.success.rawValue && stats.stale == false
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

    /// `success · 151 items · fresh · checked 12 s ago · next in 48 s · seq 4`; with a file watched, `… · watching the
    /// file · …`; stale, `success · 151 items · stale since 2 min ago (why) · retry in 8 s · seq 9`; `loading · seq 5`.
    /// `now` is the time the relative times count from.
    static func line(_ stats: DepotStatistics, now: Date = Date()) -> String {
        var parts = [stats.status]
        if let items = stats.items { parts.append(items == 1 ? "1 item" : "\(items) items") }
        let refresh = stats.refresh
        func since(_ text: String?) -> Double? {
            text.flatMap(RFC3339.date).map { now.timeIntervalSince($0) }
        }
        switch stats.stale {
        case true?:
            var stale = "stale"
            if let failing = since(refresh?.failingSince) { stale += " since \(RelativeTime.ago(failing))" }
            if let reason = stats.staleReason { stale += " (\(reason))" }
            parts.append(stale)
        case false?:
            parts.append("fresh")
            if let checked = since(refresh?.lastSuccessAt) { parts.append("checked \(RelativeTime.ago(checked))") }
        case nil:
            if stats.status == StateStatus.failure.rawValue, let error = refresh?.lastError { parts.append(error) }
        }
        if let refresh {
            if refresh.paused {
                parts.append("refresh waits for a subscriber")
            } else if let due = since(refresh.nextRefreshAt).map({ -$0 }) {
                parts.append(RelativeTime.due(due, retrying: refresh.retrying))
            }
            if refresh.watchedFile != nil { parts.append("watching the file") }
        }
        parts.append("seq \(stats.seq)")
        return parts.joined(separator: " · ")
    }
}
