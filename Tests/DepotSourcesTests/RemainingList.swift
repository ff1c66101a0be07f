import DepotCore
import Testing

/// The list a deletion handed back with its version, required: a file source always says what it wrote.
func remainingList(
    _ deletion: SourceWriteOutcome, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (items: ItemCollection, version: SourceVersion?) {
    guard case .remaining(let items, let version) = deletion else {
        try #require(Bool(false), "expected the remaining list, got \(deletion)", sourceLocation: sourceLocation)
        preconditionFailure("#require stops the test")
    }
    return (items, version)
}
