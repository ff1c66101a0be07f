/// How a collection's ids are written in a request: the benchmark's own collection has the integers 1…N; another
/// (a PostgreSQL table of `scripts/bench-fleet`) has strings, a prefix and the number.
public struct BenchIDs: Sendable {
    public var prefix: String?

    public init(prefix: String? = nil) {
        self.prefix = prefix
    }

    /// The JSON literal of the `number`th id.
    func literal(_ number: Int) -> String {
        prefix.map { #""\#($0)\#(number)""# } ?? String(number)
    }
}
