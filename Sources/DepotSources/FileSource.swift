public import DepotCore
public import DepotJSON
import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// A collection kept in a file as a JSON array of objects (`file:PATH`), laid out however its writer likes: compact,
/// one item per line, Python's `json.dump`, `jq .`, an editor's indentation.
///
/// Every listing carries a digest of the file's bytes as its version (`ContentDigest`): asked whether the items
/// changed since that version, the source reads the file and answers "unchanged" when its bytes are the same,
/// without scanning them — so a refresh that finds the file as it was costs a read and a hash and publishes nothing,
/// and one that finds it as this source last wrote it (the refresh its own write sets off) costs a stat. A file is
/// read in one pass that builds no tree of values (`FileScan`), which also says where each item stands.
///
/// A write changes the file in place (`FileSplice`): changed items replaced where they stand, removed ones taken
/// out, new ones added last in the file's own layout, every other byte as it was. It is written to a temporary file,
/// synced, renamed over the file, and the directory synced: once a write is answered, it is on disk, and a crash
/// leaves the old file or the new one, never a mix. Each change's expectation is checked against the file as it is
/// then (read again when it changed behind depotd's back). A file that is read-only is refused rather than
/// replaced, since the rename would otherwise succeed regardless.
public struct FileSource: WritableSource, WatchableSource {
    public let path: String
    public let idField: String
    private let memory = FileMemory()
    /// The threads its blocking calls run on, shared by its copies, stopped when the last is let go.
    private let io = FileIO()
    private let writer = BackgroundWriter()

    public init(path: String, idField: String = Repository.defaultIDField) {
        self.path = path
        self.idField = idField
    }

    public var description: String { "file:\(path)" }

    /// Others edit the file: depotd watches it.
    public var watchedPath: String { path }

    public func fetchItems() async throws -> [JSONValue] {
        try parse(try await read().bytes)
    }

    /// The items, checked into a collection straight from the file's bytes (`FileScan`), or — for a file that is not
    /// a JSON array of objects with usable ids — parsed into values for the repository to check and say what is wrong;
    /// `.unchanged` when the bytes are those `version` was read from.
    public func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        // The file as this source last read or wrote it, and `version` that content's: unchanged, without a read (the
        // refresh its own write sets off costs a stat, not a read and a hash of the whole file).
        if let version, let known = memory.content(ifStill: await io.stamp(of: path), idField: idField), known.digest == version.digest {
            return .unchanged
        }
        let (bytes, stamp) = try await read()
        // The digest is made on another core. With a version to compare it with, it is awaited first, so bytes that
        // did not change cost no scan; with none (the first load, or one after a wipe) it is only the new version,
        // made beside the scan or the parse rather than before it (some 50 ms at 100 MB). On Swift's pool: a child task
        // inherits its parent's executor, and depotd runs the repository's mutations on the one thread of its
        // `SourceLoop`, where the digest would wait for the scan.
        async let digest = withTaskExecutorPreference(globalConcurrentExecutor) { ContentDigest.of(bytes) }
        if let version, await version.digest == digest {
            if let known = memory.content(withDigest: await digest, idField: idField) {
                memory.remember(known, stamp: stamp, idField: idField)
            }
            return .unchanged
        }
        if let (items, layout) = FileScan.scan(bytes, idField: idField) {
            let content = FileMemory.Content(items: items, digest: await digest, layout: layout)
            memory.remember(content, stamp: stamp, idField: idField)
            return .collection(items, idField: idField, version: SourceVersion(digest: content.digest))
        }
        let values = try parse(bytes)
        return .items(values, version: SourceVersion(digest: await digest))
    }

    /// Makes `changes` in the file, in order, all or none, each checked against the file as it is now: in place, one
    /// rewrite (see the type's description). Answers the items the file holds after, with the digest of its bytes:
    /// when the file was still what `held` was read from, `held`'s items with the changes made, which the repository
    /// and the fan-out recognise at the cost of the change.
    public func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        // The file may change between the look and the write (a person saving it): then it is looked at again.
        for _ in 0..<3 {
            let (content, stamp) = try await currentContent(held: held)
            var created: [Bool] = []
            var current: [String: Item?] = [:]
            for (index, change) in changes.enumerated() {
                let item = current[change.id] ?? content.items.item(id: change.id)
                guard change.isMet(by: item) else { throw SourceError.conflict(index: index, change, current: item, in: description) }
                if change.write.item == nil, item == nil { throw SourceError.notFound(id: change.id, in: description) }
                created.append(item == nil && change.write.item != nil)
                current[change.id] = .some(change.write.item)
            }
            // Refused only once there is something to write: an unknown id is notFound whatever the file's mode.
            if let mode = await io.readOnlyMode(of: path) {
                throw SourceError(.refused, "refusing to rewrite \(path): it is read-only (mode \(mode)); make it writable to allow changes")
            }
            guard let splice = FileSplice(writing: changes.map(\.write), to: content.items, layout: content.layout) else {
                // Nothing changes: the file holds it already.
                return SourceWriteResult(.remaining(content.items, version: SourceVersion(digest: content.digest)), created: created)
            }
            switch await write(splice, over: stamp) {
            case .success(let (digest, newStamp)):
                memory.remember(FileMemory.Content(items: splice.items, digest: digest, layout: splice.layout), stamp: newStamp, idField: idField)
                return SourceWriteResult(.remaining(splice.items, version: SourceVersion(digest: digest)), created: created)
            case .failure(.changedMeanwhile):
                continue
            case .failure(.system(let error)):
                memory.forget()
                throw SourceError(.unavailable, error.description)
            case .failure(.eitherVersion(let error)):
                memory.forget()
                throw SourceError(.outcomeUnknown, error.description)
            }
        }
        throw SourceError(.unavailable, "\(path) kept changing while depotd tried to write it; try again")
    }

    /// The file's content now, and its stamp: what this source knows when the file still has the stamp it read or
    /// wrote it with (`held`'s items when they are that content: the change is then made to them), else the file read
    /// and scanned again.
    private func currentContent(held: HeldItems?) async throws -> (FileMemory.Content, FileStamp?) {
        let heldDigest = held.flatMap { $0.idField == idField ? $0.version?.digest : nil }
        func preferringHeld(_ content: FileMemory.Content) -> FileMemory.Content {
            guard let held, heldDigest == content.digest else { return content }
            return FileMemory.Content(items: held.items, digest: content.digest, layout: content.layout)
        }
        let stamp = await io.stamp(of: path)
        if let known = memory.content(ifStill: stamp, idField: idField) {
            return (preferringHeld(known), stamp)
        }
        let (bytes, readStamp) = try await read()
        let digest = ContentDigest.of(bytes)
        guard let (items, layout) = FileScan.scan(bytes, idField: idField) else {
            do {
                _ = try ItemCollection(values: try parse(bytes), idField: idField)
            } catch let error as ItemCollectionError {
                throw SourceError(.invalidData, "\(path): \(error)")
            }
            throw SourceError(.invalidData, "\(path) cannot be read as a list of items")
        }
        let content = FileMemory.Content(items: items, digest: digest, layout: layout)
        memory.remember(content, stamp: readStamp, idField: idField)
        return (preferringHeld(content), readStamp)
    }

    private enum WriteFailure: Error {
        /// The file is no longer the one looked at: look again.
        case changedMeanwhile
        case system(SystemError)
        /// The new content was renamed into place and could be neither made durable nor undone.
        case eitherVersion(ReplacementError)
    }

    /// Writes the spliced file over the one with `stamp`, on the background writer's thread (which yields the CPU to
    /// the event loops) through its buffer: the old bytes read and the new ones hashed and written piece by piece.
    private func write(_ splice: FileSplice, over stamp: FileStamp?) async -> Result<(String, FileStamp?), WriteFailure> {
        let path = path
        return await writer.run(usingBuffer: { buffer -> Result<(String, FileStamp?), WriteFailure> in
            let old = open(path, O_RDONLY | O_CLOEXEC)
            guard old >= 0 else { return .failure(.system(SystemError("cannot read \(path)"))) }
            defer { close(old) }
            guard let opened = FileStamp.of(descriptor: old), opened == stamp else { return .failure(.changedMeanwhile) }
            var digest = ContentDigest.Running()
            do throws(ReplacementError) {
                let newStamp = try Files.replaceAtomically(path) { write in
                    splice.stream(from: old, size: Int(opened.size), through: buffer) { piece in
                        defer { BackgroundWriter.yieldBetweenPieces() }
                        digest.add(piece)
                        return write(piece)
                    }
                }
                return .success((digest.finish(), newStamp))
            } catch {
                return .failure(error.mayHoldEither ? .eitherVersion(error) : .system(error.cause))
            }
        })
    }

    private func read() async throws(SourceError) -> (bytes: [UInt8], stamp: FileStamp) {
        do {
            return try await io.readStamped(path)
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
