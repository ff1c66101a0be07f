import ArgumentParser
import DepotBenchmarks
import DepotPlatform
import Foundation

/// The benchmarks of issue 6: fan-out, RPC, memory and start-up of depotd, side by side with the floor and Redis.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run every scenario on depotd, the floor and Redis; write BENCHMARKS.md and benchmarks/results.json.",
        discussion:
            "Starts depotd (the one next to this tool, or --depotd), the floor (this tool) and redis-server on Unix sockets in a temporary directory, and stops them at the end, also on failure or Ctrl-C. Progress goes to stderr. Build release binaries first (`swift build -c release`), or use scripts/bench."
    )

    @Flag(help: "A tiny configuration that runs in seconds, only to prove the tool works (CI).")
    var quick = false

    @Option(help: "Where BENCHMARKS.md and benchmarks/results.json go.")
    var output = "."

    @Option(help: "The depotd binary. Default: the one next to this tool.")
    var depotd: String?

    @Option(name: .customLong("redis-server"), help: "The redis-server binary. Default: redis-server on PATH.")
    var redisServer: String?

    @Flag(name: .customLong("no-redis"), help: "Run without Redis (its columns stay empty).")
    var noRedis = false

    @Option(
        help: "The scenarios to run, comma-separated: fanout, rpc, memory, startup, removal, subscriptions, pipelines, scaling, writes. Default: all."
    )
    var scenarios = "fanout,rpc,memory,startup,removal,subscriptions,pipelines,scaling,writes"

    @Option(
        help: ArgumentHelp(
            "Only these fan-out cases, as ITEMS:SUBSCRIBERS pairs, comma-separated (e.g. 100:1024), for profiling one case.", valueName: "cases"))
    var fanout: String?

    @Option(help: "A note printed at the top of BENCHMARKS.md, such as what else the machine was doing.")
    var note: String?

    @Option(
        help:
            "A Markdown file appended to BENCHMARKS.md (changes made to meet targets, before and after). Default: benchmarks/history.md under --output, if it exists."
    )
    var history: String?

    func run() throws {
        var plan = quick ? BenchmarkPlan.quickCheck : BenchmarkPlan.full
        if let fanout {
            plan.fanout = try fanout.split(separator: ",").map { pair in
                let parts = pair.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
                    throw ValidationError("--fanout takes ITEMS:SUBSCRIBERS pairs such as 100:1024, not \"\(pair)\"")
                }
                return (parts[0], [parts[1]])
            }
        }
        let chosen = try Set(
            scenarios.split(separator: ",").map { name in
                guard let scenario = BenchmarkRun.Scenario(rawValue: String(name)) else {
                    throw ValidationError(
                        "no scenario \"\(name)\"; the scenarios are fanout, rpc, memory, startup, removal, subscriptions, pipelines, scaling and writes"
                    )
                }
                return scenario
            })
        let depotdBinary = depotd ?? BenchBinaries.depotd
        guard FileManager.default.isExecutableFile(atPath: depotdBinary) else {
            throw ValidationError("no depotd at \(depotdBinary): build it (swift build -c release) or give --depotd")
        }
        let redisBinary = noRedis ? nil : (redisServer ?? RedisUnderTest.findBinary())
        if !noRedis, redisServer == nil, redisBinary == nil, !quick {
            throw ValidationError("redis-server is not installed: install it (apt-get install redis-server), or run with --no-redis")
        }
        // Each subscriber is a descriptor here and one in the server; the servers inherit this limit.
        let (_, limit) = OpenFileLimit.raiseToHardLimit()
        let needed = 2 * (plan.idleSubscriberSteps + plan.fanout.flatMap(\.subscribers)).max()! + 256
        guard limit >= needed else {
            throw ValidationError("the open-file limit is \(limit), and this run needs \(needed): raise it (ulimit -n \(needed)) and run again")
        }

        let directory = try BenchDirectory.create()
        ManagedProcess.stopAllOnSignal { directory.remove() }
        defer {
            ManagedProcess.stopAll()
            directory.remove()
        }
        let run = BenchmarkRun(
            plan: plan, depotdBinary: depotdBinary, benchBinary: BenchBinaries.this, redisBinary: redisBinary, directory: directory.path,
            scenarios: chosen)
        var results = try run.run()
        if let note { results.notes.insert(note, at: 0) }
        try write(results)
    }

    private func write(_ results: BenchmarkResults) throws {
        let outputURL = URL(fileURLWithPath: output)
        let resultsURL = outputURL.appendingPathComponent("benchmarks/results.json")
        try FileManager.default.createDirectory(at: resultsURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(results).write(to: resultsURL)

        let historyPath = history ?? outputURL.appendingPathComponent("benchmarks/history.md").path
        let historyText = try? String(contentsOfFile: historyPath, encoding: .utf8)
        let report = BenchmarksReport(results: results, history: historyText, command: quick ? "scripts/bench --quick" : "scripts/bench")
        let reportURL = outputURL.appendingPathComponent("BENCHMARKS.md")
        try Data(report.markdown.utf8).write(to: reportURL)
        if let plot = ScalingPlot(results.scaling) {
            try Data(plot.svg.utf8).write(to: outputURL.appendingPathComponent(ScalingPlot.path))
        }
        FileHandle.standardError.write(Data("wrote \(reportURL.path) and \(resultsURL.path)\n".utf8))
    }
}
