/// Why a benchmark run stopped, worded so the person running it knows what to do.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
