/// A source that takes writes: puts, patches made into puts, removals, batches of them.
public protocol WritableSource: Source {
    /// Makes `changes` in order, all or none, and says what it holds now (`SourceWriteResult`). `held` is what the
    /// repository holds (nil when it holds no items): a source that rewrites its whole content (a file) may write from
    /// these items when its version shows they are still its content.
    ///
    /// Throws `SourceError.conflict` (with the index of the change and the item the source holds) when a change's
    /// expectation does not hold, `SourceError.notFound` for a removal of an item it lacks, and any other error when
    /// it refuses or fails; nothing is changed then.
    func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult

    /// Whether the items depotd holds may lag behind the source's — others write to it too (a fleet's other daemons,
    /// an API's other users) — so that a write the items held refuse (an item not there, a precondition not met) is
    /// refused only once the source has been read again. False for a source depotd checks each change against itself
    /// (a file, read again first when it changed).
    var othersWrite: Bool { get }
}

extension WritableSource {
    public var othersWrite: Bool { false }

    /// Removes the item `id`, as a write of one removal.
    @discardableResult
    public func deleteItem(id: String, held: HeldItems? = nil) async throws -> SourceWriteOutcome {
        try await write([SourceChange(.remove(id: id))], held: held).outcome
    }
}

extension Source {
    /// Makes `changes` when the source takes writes; otherwise refuses them (`notWritable`).
    func writeIfWritable(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        guard let writable = self as? any WritableSource else { throw notWritable }
        return try await writable.write(changes, held: held)
    }

    /// Why a source that is not a `WritableSource` takes no write, and which sources do.
    var notWritable: SourceError {
        SourceError(.unsupported, "\(description) cannot be written: serve the items from a file: or postgres:// source to write them")
    }
}
