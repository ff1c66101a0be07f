public import DepotJSON

/// Why a pipeline (as JSON) was refused: which operator, where inside it, and what is wrong.
public struct PipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operator's position in the pipeline (from 0); nil when the pipeline as a whole is wrong.
    public let index: Int?
    /// Where the problem is, from the pipeline array: `/2/where/all/0/field`.
    public let pointer: JSONPointer
    /// What is wrong and what is expected, for a person.
    public let reason: String

    public init(index: Int?, pointer: JSONPointer, reason: String) {
        self.index = index
        self.pointer = pointer
        self.reason = reason
    }

    /// "operator 2 (filter) at /2/where/field: …" or the reason alone for the pipeline as a whole.
    public var description: String {
        guard let index else { return reason }
        return "operator \(index) at \(pointer): \(reason)"
    }
}
