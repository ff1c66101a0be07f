/// A message from depotd that does not have the shape rpc-schema/openrpc.json gives it: what was expected,
/// and what came instead.
public struct WireDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
