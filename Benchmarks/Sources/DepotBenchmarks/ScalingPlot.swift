import Foundation

/// The scaling scenario's figures as a log-log plot: depotd's CPU per removal and delta p99, and the floor's p99,
/// against N. An SVG the run writes beside BENCHMARKS.md, which shows it; flat lines are what the issue asks for.
public struct ScalingPlot {
    /// Where the run writes it, relative to its output directory.
    public static let path = "benchmarks/scaling.svg"

    struct Series {
        let name: String
        let color: String
        /// (N, milliseconds), ascending N.
        let points: [(items: Int, milliseconds: Double)]
    }

    let series: [Series]

    /// Nil when there are no depotd figures to plot.
    public init?(_ figures: [FanoutFigures]) {
        let depotd = figures.filter { $0.system.hasPrefix("depotd") }.sorted { $0.items < $1.items }
        guard !depotd.isEmpty else { return nil }
        let floor = figures.filter { $0.system.hasPrefix("floor") }.sorted { $0.items < $1.items }
        series = [
            Series(name: "depotd CPU per removal", color: "#d62728", points: depotd.map { ($0.items, $0.cpuMillisecondsPerRound ?? 0) }),
            Series(name: "depotd delta p99", color: "#1f77b4", points: depotd.map { ($0.items, $0.latency.p99 / 1000) }),
            Series(name: "floor p99", color: "#7f7f7f", points: floor.map { ($0.items, $0.latency.p99 / 1000) }),
        ].filter { !$0.points.isEmpty }
    }

    static let width = 640.0
    static let height = 400.0
    static let margin = (left: 70.0, right: 190.0, top: 20.0, bottom: 50.0)
    /// Values below this are drawn at it: a log scale has no zero (a CPU figure under a clock tick is 0).
    static let smallest = 0.01

    public var svg: String {
        let values = series.flatMap { $0.points.map { Swift.max(Self.smallest, $0.milliseconds) } }
        let counts = series.flatMap { $0.points.map(\.items) }
        let xRange = Self.decades(Double(counts.min() ?? 1), Double(counts.max() ?? 10))
        let yRange = Self.decades(values.min() ?? 0.1, values.max() ?? 1)
        let plotWidth = Self.width - Self.margin.left - Self.margin.right
        let plotHeight = Self.height - Self.margin.top - Self.margin.bottom
        func x(_ items: Int) -> Double {
            Self.margin.left + (log10(Double(items)) - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * plotWidth
        }
        func y(_ milliseconds: Double) -> Double {
            let value = log10(Swift.max(Self.smallest, milliseconds))
            return Self.margin.top + (1 - (value - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound)) * plotHeight
        }
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" \
            viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>

            """
        for decade in Int(xRange.lowerBound)...Int(xRange.upperBound) {
            let position = x(Int(pow(10, Double(decade))))
            out += Self.line(position, Self.margin.top, position, Self.margin.top + plotHeight, "#dddddd")
            out += Self.text(position, Self.height - Self.margin.bottom + 18, "10^\(decade)", anchor: "middle")
        }
        for decade in Int(yRange.lowerBound)...Int(yRange.upperBound) {
            let position = y(pow(10, Double(decade)))
            out += Self.line(Self.margin.left, position, Self.margin.left + plotWidth, position, "#dddddd")
            out += Self.text(Self.margin.left - 8, position + 4, Self.milliseconds(pow(10, Double(decade))), anchor: "end")
        }
        out += Self.text(Self.margin.left + plotWidth / 2, Self.height - 12, "items (N), log scale", anchor: "middle")
        for (index, series) in series.enumerated() {
            let points = series.points.map { String(format: "%.1f,%.1f", x($0.items), y($0.milliseconds)) }
            out += "<polyline fill=\"none\" stroke=\"\(series.color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            for point in series.points {
                out += "<circle cx=\"\(Self.f(x(point.items)))\" cy=\"\(Self.f(y(point.milliseconds)))\" r=\"3\" fill=\"\(series.color)\"/>\n"
            }
            let legendY = Self.margin.top + 14 + Double(index) * 18
            out += Self.line(Self.width - Self.margin.right + 12, legendY - 4, Self.width - Self.margin.right + 32, legendY - 4, series.color)
            out += Self.text(Self.width - Self.margin.right + 38, legendY, series.name, anchor: "start")
        }
        return out + "</svg>\n"
    }

    /// Whole decades around `low`…`high` (log10), at least one wide.
    static func decades(_ low: Double, _ high: Double) -> ClosedRange<Double> {
        let bottom = floor(log10(Swift.max(smallest, low)))
        let top = Swift.max(bottom + 1, ceil(log10(Swift.max(smallest, high))))
        return bottom...top
    }

    /// A coordinate, to a tenth of a pixel.
    static func f(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    static func milliseconds(_ value: Double) -> String {
        value >= 1 ? String(format: "%.0f ms", value) : String(format: "%g ms", value)
    }

    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String) -> String {
        "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(color)\"/>\n"
    }

    static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\">\(content)</text>\n"
    }
}
