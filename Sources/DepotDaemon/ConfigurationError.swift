/// A setting that cannot be used: says which setting, where it came from, and what would be valid.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
