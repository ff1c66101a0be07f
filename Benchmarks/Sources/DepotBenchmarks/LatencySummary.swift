/// Percentiles of a set of latencies, in microseconds.
public struct LatencySummary: Codable, Sendable {
    public var samples: Int
    public var p50: Double
    public var p99: Double
    public var max: Double

    /// `nanoseconds` need not be sorted.
    public init(nanoseconds: [UInt64]) {
        let sorted = nanoseconds.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            // Nearest rank: the smallest sample with at least p of the samples at or below it.
            let rank = Int((p * Double(sorted.count)).rounded(.up))
            return Double(sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]) / 1000
        }
        samples = sorted.count
        p50 = percentile(0.5)
        p99 = percentile(0.99)
        max = Double(sorted.last ?? 0) / 1000
    }
}
