import ArgumentParser
import DepotBenchmarks
import Foundation

/// Issue 28's stress test against a depotd that is already running, whatever its source: `scripts/bench-fleet
/// --readers` runs it on a daemon of a PostgreSQL table, whose removal is one statement, beside the file source of
/// `run --scenarios scaling`, whose removal rewrites the file.
struct ReadsUnderChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reads-under-changes",
        abstract:
            "Time `get` from many clients on a running depotd, in windows idle and while its items are removed or patched; prints one JSON object."
    )

    @Option(help: "The running depotd's socket.")
    var socket: String

    @Option(help: "How many items it holds: ids 1…N, or PREFIX1…PREFIXN with --id-prefix. The last is read, the first removed.")
    var items: Int

    @Option(help: "Ids are strings: this prefix and the number.")
    var idPrefix: String?

    @Option(help: "Closed-loop clients calling get.")
    var clients = 64

    @Option(help: "Optimistic changes a second while the collection changes.")
    var rate = 10.0

    @Option(help: "What each change is: removal (of the next item) or patch (of one member of the next item, going round them).")
    var change = "removal"

    @Option(help: "Seconds measured of each kind (in 2 s windows that alternate), after a second's warm-up.")
    var seconds = 10.0

    func run() throws {
        let pool = ReaderPool()
        defer { pool.shutdown() }
        guard let kind = ReadsUnderChangesScenario.Change(rawValue: change) else {
            throw ValidationError("--change is removal or patch, not \"\(change)\"")
        }
        let scenario = ReadsUnderChangesScenario(
            items: items, clients: clients, changesPerSecond: rate, warmUp: 1, seconds: seconds, change: kind)
        let figures = try scenario.measure(socketPath: socket, framing: .lines, ids: BenchIDs(prefix: idPrefix), pool: pool)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(figures), as: UTF8.self))
    }
}
