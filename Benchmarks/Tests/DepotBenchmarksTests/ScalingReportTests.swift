import Foundation
import Testing

@testable import DepotBenchmarks

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Scaling (issue 28): the plot and the targets from the figures")
struct ScalingReportTests {
    static func figure(_ system: String, items: Int, p99Microseconds: Double, cpu: Double?) -> FanoutFigures {
        var latency = LatencySummary(nanoseconds: [UInt64(p99Microseconds * 1000)])
        latency.p50 = p99Microseconds / 2
        return FanoutFigures(
            system: system, items: items, subscribers: 64, rounds: 10, latency: latency, deliveriesPerSecond: 1, bytesPerSecond: 1,
            messageBytes: 300, cpuMillisecondsPerRound: cpu)
    }

    static let figures = [1000, 10_000, 100_000, 1_000_000].flatMap { items in
        [
            figure("depotd delta", items: items, p99Microseconds: items == 1_000_000 ? 12_000 : 3_000, cpu: items == 1_000_000 ? 0 : 1.5),
            figure("floor (delta size)", items: items, p99Microseconds: 800, cpu: 0),
        ]
    }

    /// The SVG's elements by name, parsed: it is well-formed XML.
    final class Elements: NSObject, XMLParserDelegate {
        var names: [String] = []
        var polylinePoints: [String] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            names.append(name)
            if name == "polyline", let points = attributes["points"] { polylinePoints.append(points) }
        }
    }

    @Test("the plot is well-formed SVG with a line of four points for each series, and a CPU of 0 (under a tick) still drawn")
    func plot() throws {
        let plot = try #require(ScalingPlot(Self.figures))
        let parser = XMLParser(data: Data(plot.svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "\(parser.parserError.map(String.init(describing:)) ?? "")")
        #expect(elements.names.first == "svg")
        #expect(elements.polylinePoints.count == 3)
        #expect(elements.polylinePoints.allSatisfy { $0.split(separator: " ").count == 4 })
        #expect(!plot.svg.contains("nan") && !plot.svg.contains("inf"))
        #expect(ScalingPlot(Self.figures.filter { !$0.system.hasPrefix("depotd") }) == nil, "nothing to plot without depotd")
    }

    @Test("the targets: within 2× across N, and at a million the delta p99 and the CPU, each met or not as the figures say")
    func targets() {
        let report = BenchmarksReport(results: BenchmarkResults(machine: .current(redisBinary: nil), quick: false), history: nil, command: "test")
        var withFigures = report
        withFigures.results.scaling = Self.figures
        let rows = withFigures.scalingTargets
        #expect(rows.count == 4)
        #expect(rows[0].contains("CPU per removal within 2×") && rows[0].contains("**not met**"), "a CPU of 0 is no figure: \(rows[0])")
        #expect(rows[1].contains("delta p99 within 2×") && rows[1].contains("**not met**"), "3 ms to 12 ms is 4×")
        #expect(rows[2].contains("≤ 10 ms") && rows[2].contains("**not met**"))
        #expect(rows[3].contains("≤ 2 ms") && rows[3].contains("**met**"))
        #expect(report.scalingTargets.isEmpty && report.scaling.isEmpty, "no figures, no section")
    }

    @Test("the stress test: a row of its own in the section, and its target met only when the p99 while changing is at most 1.5× idle")
    func readsUnderChanges() {
        func stress(idleP99: Double, changingP99: Double) -> ReadsUnderChangesFigures {
            var idle = LatencySummary(nanoseconds: [1])
            idle.p99 = idleP99
            var changing = idle
            changing.p99 = changingP99
            return ReadsUnderChangesFigures(
                items: 100_000, clients: 64, seconds: 10, changesPerSecond: 10, changesMade: 100, changeSeconds: 9.9, idle: idle,
                changing: changing)
        }
        var report = BenchmarksReport(results: BenchmarkResults(machine: .current(redisBinary: nil), quick: false), history: nil, command: "test")
        report.results.scaling = Self.figures
        report.results.readsUnderChanges = [stress(idleP99: 2000, changingP99: 2900)]
        #expect(report.scalingTargets.last?.contains("1.45×") == true && report.scalingTargets.last?.contains("**met**") == true)
        #expect(report.scaling.contains("| 100000 | 64 | 10/s | 10.0 |") && report.scaling.contains("100 in 9.9 s"))
        report.results.readsUnderChanges = [stress(idleP99: 2000, changingP99: 3100)]
        #expect(report.scalingTargets.last?.contains("**not met**") == true, "1.55× is over the target")
        var slow = stress(idleP99: 2000, changingP99: 2100)
        slow.changesMade = 25
        report.results.readsUnderChanges = [slow]
        #expect(report.scalingTargets.last?.contains("**not met**") == true, "2.5 changes/s is not the 10/s asked")
    }
}
