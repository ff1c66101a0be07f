import ArgumentParser
import DepotBenchmarks
import Foundation

/// Writes BENCHMARKS.md again from a run's benchmarks/results.json and the current benchmarks/history.md, so the
/// history can be edited without measuring everything again.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write BENCHMARKS.md from benchmarks/results.json and benchmarks/history.md, without running anything."
    )

    @Option(help: "The directory holding benchmarks/results.json, where BENCHMARKS.md is written.")
    var output = "."

    func run() throws {
        let outputURL = URL(fileURLWithPath: output)
        let resultsURL = outputURL.appendingPathComponent("benchmarks/results.json")
        let results: BenchmarkResults
        do {
            results = try JSONDecoder().decode(BenchmarkResults.self, from: Data(contentsOf: resultsURL))
        } catch {
            throw ValidationError("cannot read \(resultsURL.path) (\(error)); run `depot-bench run` first")
        }
        let history = try? String(contentsOfFile: outputURL.appendingPathComponent("benchmarks/history.md").path, encoding: .utf8)
        let report = BenchmarksReport(results: results, history: history, command: results.quick ? "scripts/bench --quick" : "scripts/bench")
        let reportURL = outputURL.appendingPathComponent("BENCHMARKS.md")
        try Data(report.markdown.utf8).write(to: reportURL)
        if let plot = ScalingPlot(results.scaling) {
            try Data(plot.svg.utf8).write(to: outputURL.appendingPathComponent(ScalingPlot.path))
        }
        FileHandle.standardError.write(Data("wrote \(reportURL.path)\n".utf8))
    }
}
