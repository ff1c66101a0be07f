public import DepotCore
public import DepotJSON
import DepotPlatform

/// A collection kept in a file as a JSON array of objects (`file:PATH`).
///
/// Every listing carries a digest of the file's bytes as its version (`ContentDigest`): asked whether the items
/// changed since that version, the source reads the file and answers "unchanged" when its bytes are the same,
/// without parsing them — so a refresh that finds the file as it was costs a read and a hash and publishes nothing,
/// and one that finds it as this source last wrote it (the refresh its own rewrite sets off) costs a stat.
///
/// `deleteItem` rewrites the file without the item, atomically (temporary file, fsync, rename), one item
/// per line, and hands the repository the list it wrote with the digest of what it wrote. It writes from the
/// items the repository holds when the file is still what they were read from (a read and a digest tell, or no
/// read at all when the file is still what this source last wrote: `WrittenList`); only a file changed behind the
/// repository's back is parsed. Items
/// are written back as they were read: members in order, numbers as written. A file that is read-only is
/// refused rather than replaced, since the rename would otherwise succeed regardless.
public struct FileSource: Source {
    public let path: String
    public let idField: String
    private let written = WrittenList()

    public init(path: String, idField: String = Repository.defaultIDField) {
        self.path = path
        self.idField = idField
    }

    public var description: String { "file:\(path)" }

    public func fetchItems() async throws -> [JSONValue] {
        try parse(try await read())
    }

    /// The items, checked into a collection straight from the file's bytes when the file is compact ASCII
    /// (`CompactItemScanner`: as this source writes it), else parsed into values for the repository to check;
    /// `.unchanged` when the bytes are those `version` was read from.
    public func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        // The file as this source last wrote it, and `version` that content's: unchanged, without a read (the
        // refresh its own rewrite sets off costs a stat, not a read and a hash of the whole file).
        if let version, let written = written.content(ifStill: await FileIO.stamp(of: path), idField: idField), written.digest == version.digest {
            return .unchanged
        }
        let bytes = try await read()
        // The digest is made on another core. With a version to compare it with, it is awaited first, so bytes that
        // did not change cost no scan; with none (the first load, or one after a wipe) it is only the new version,
        // made beside the scan or the parse rather than before it (some 50 ms at 100 MB).
        async let digest = ContentDigest.of(bytes)
        if let version, await version.digest == digest {
            return .unchanged
        }
        if let collection = scannedCollection(bytes) {
            return .collection(collection, idField: idField, version: SourceVersion(digest: await digest))
        }
        let values = try parse(bytes)
        return .items(values, version: SourceVersion(digest: await digest))
    }

    @discardableResult
    public func deleteItem(id: String) async throws -> SourceDeletion {
        try await deleteItem(id: id, held: nil)
    }

    /// Rewrites the file without `id`, from the items `held` when they are still the file's content (its digest
    /// is their version): then the other items are neither read nor parsed, only their held bytes written, and the
    /// list handed back is `held`'s less one item, which the repository and the fan-out recognise in O(1).
    @discardableResult
    public func deleteItem(id: String, held: HeldItems?) async throws -> SourceDeletion {
        let collection = try await currentItems(held: held)
        guard collection.contains(id: id) else {
            throw SourceError.notFound(id: id, in: description)
        }
        if let mode = await FileIO.readOnlyMode(of: path) {
            throw SourceError(.refused, "refusing to rewrite \(path): it is read-only (mode \(mode)); make it writable to allow removals")
        }
        let remaining = collection.removing(id: id)
        // The file's bytes, their digest and the write cost in proportion to the file: on the background writer's
        // thread, which yields the CPU to the event loops, through its buffer.
        let path = path
        let written = await BackgroundWriter.shared.run(usingBuffer: { buffer -> Result<(String, FileStamp?), SystemError> in
            Result { () throws(SystemError) in
                var digest: String?
                let stamp = try Files.replaceAtomically(path) { write in
                    digest = FileText.write(remaining, through: buffer) { piece in
                        defer { BackgroundWriter.yieldBetweenPieces() }
                        return write(piece)
                    }
                    return digest != nil
                }
                guard let digest else { preconditionFailure("a file written whole has the digest of every piece") }
                return (digest, stamp)
            }
        })
        switch written {
        case .success(let (digest, stamp)):
            self.written.remember(remaining, digest: digest, stamp: stamp, idField: idField)
            return .remaining(remaining, version: SourceVersion(digest: digest))
        case .failure(let error):
            self.written.forget()
            throw SourceError(.unavailable, error.description)
        }
    }

    /// The file's items now: `held`'s when the file's bytes are those they were read from (known without a read
    /// when the file is as this source last wrote it), else the file read and checked into a collection.
    private func currentItems(held: HeldItems?) async throws -> ItemCollection {
        let heldDigest = held.flatMap { $0.idField == idField ? $0.version?.digest : nil }
        if let written = written.content(ifStill: await FileIO.stamp(of: path), idField: idField) {
            if let held, heldDigest == written.digest { return held.items }
            return written.items
        }
        let bytes = try await read()
        if let held, heldDigest == ContentDigest.of(bytes) { return held.items }
        if let collection = scannedCollection(bytes) { return collection }
        do {
            return try ItemCollection(values: try parse(bytes), idField: idField)
        } catch let error as ItemCollectionError {
            throw SourceError(.invalidData, "\(path): \(error)")
        }
    }

    /// The collection in `bytes` when they are compact ASCII (as this source writes them), checked straight from the
    /// bytes by `CompactItemScanner` without parsing them into values; nil otherwise, or when an id repeats (the full
    /// parse then says where).
    private func scannedCollection(_ bytes: [UInt8]) -> ItemCollection? {
        CompactItemScanner.items(in: bytes, idField: idField).flatMap { try? ItemCollection(items: $0) }
    }

    private func read() async throws(SourceError) -> [UInt8] {
        do {
            return try await FileIO.read(path)
        } catch {
            throw SourceError(.unavailable, error.description)
        }
    }

    private func parse(_ bytes: [UInt8]) throws(SourceError) -> [JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw SourceError(.invalidData, "\(path) is not valid JSON: \(error) (\(error.position(in: bytes)))")
        }
        guard case .array(let elements) = value else {
            throw SourceError(.invalidData, "\(path) must hold a JSON array of items, but holds \(value.typeNameWithArticle)")
        }
        return elements
    }
}
