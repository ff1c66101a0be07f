/// Why `Files.replaceAtomically` failed, and what the file holds since.
public struct ReplacementError: Error, Sendable, CustomStringConvertible {
    /// What failed, naming the file; its errno.
    public let cause: SystemError
    /// True when the file may hold either version: the new content was renamed into place, its directory could not be
    /// synced, and putting back what it held failed as often as it was tried — whether the change is in the file, now or
    /// after a power loss, cannot be told. False when the file holds what it held before.
    public let mayHoldEither: Bool

    public init(_ cause: SystemError, mayHoldEither: Bool) {
        self.cause = cause
        self.mayHoldEither = mayHoldEither
    }

    public var code: Int32? { cause.code }

    public var description: String { cause.description }
}
