import ArgumentParser
import DepotJSON
import DepotWire

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print what depotd is doing: connections and memory by uid, subscriptions' queues, source calls, limits reached.",
        discussion:
            "--json prints the answer as depotd sends it (rpc-schema/openrpc.json describes it); --prometheus prints Prometheus's text format, for node_exporter's textfile collector or a scrape through a small wrapper."
    )

    @OptionGroup var options: ConnectionOptions

    @Flag(help: "Print Prometheus's text exposition format.")
    var prometheus = false

    func run() async throws {
        let (json, stats) = try await RemoteCall(options: options).run(StatsRequest())
        if options.json {
            Output.line(json.jsonText)
        } else if prometheus {
            Output.line(StatsFormatter.prometheus(stats))
        } else {
            Output.line(StatsFormatter.text(stats))
        }
    }
}
