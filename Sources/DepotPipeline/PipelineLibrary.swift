import DepotJSON
public import DepotOperators
import DepotPlatform
import Foundation
public import Logging

/// The named pipelines the daemon keeps: those stored through `pipelines.put`, one file each in the state
/// directory (`pipelines/NAME.json`, written atomically: after a `kill -9` at any moment a file holds the old
/// version or the new one), and those an administrator configures, read-only, as `*.json` files in a directory
/// beside depotd.json (read at start and on every reload). A configured pipeline takes precedence over a stored
/// one of the same name, which is logged.
public final class PipelineLibrary: Sendable {
    /// One pipeline and where it comes from.
    public struct Entry: Sendable, Equatable {
        public let named: NamedPipeline
        /// The configuration file it is read from; nil for one stored through `pipelines.put`.
        public let configuredAt: String?

        public var isReadOnly: Bool { configuredAt != nil }
    }

    /// Where stored pipelines go, created when the first is stored; nil keeps them in memory only (tests).
    public let storeDirectory: String?
    /// Where configured pipelines are read from; nil for none.
    public let configuredDirectory: String?
    private let logger: Logger
    /// What is known, by name. Taken by readers on event loops (`entry`, `list`), so never held across a disk write.
    private let entries: Locked<(stored: [String: NamedPipeline], configured: [String: Entry])>
    /// Where every store and deletion runs, one at a time from start to end (its file written and synced, then the
    /// entry changed), so the files and `entries` agree: a write and its fsync take as long as the disk does, and the
    /// callers of `put(_:completion:)` and `delete(_:completion:)` are event loops.
    private let writes = DispatchQueue(label: "depot.pipeline-library")

    /// Reads both directories; a file that cannot be read or is not a valid pipeline is logged and skipped.
    public init(storeDirectory: String?, configuredDirectory: String? = nil, logger: Logger) {
        self.storeDirectory = storeDirectory
        self.configuredDirectory = configuredDirectory
        self.logger = logger
        let stored = storeDirectory.map { Self.read($0, what: "stored", logger: logger).mapValues(\.named) } ?? [:]
        let configured = configuredDirectory.map { Self.read($0, what: "configured", logger: logger) } ?? [:]
        for name in stored.keys where configured[name] != nil {
            logger.warning("the configured pipeline \"\(name)\" hides the stored one of the same name; delete one of them")
        }
        entries = Locked((stored, configured))
    }

    /// The pipeline called `name`; nil when there is none.
    public func entry(_ name: String) -> Entry? {
        entries.withLock { entries in
            entries.configured[name] ?? entries.stored[name].map { Entry(named: $0, configuredAt: nil) }
        }
    }

    /// Every pipeline, by name.
    public func list() -> [Entry] {
        entries.withLock { entries in
            var all = entries.stored.mapValues { Entry(named: $0, configuredAt: nil) }
            all.merge(entries.configured) { _, configured in configured }
            return all.values.sorted { $0.named.name < $1.named.name }
        }
    }

    /// Stores `named`, replacing a stored one of that name. Refused for a configured name. Blocks on the disk:
    /// from an event loop, call `put(_:completion:)`.
    /// - Returns: true when no pipeline had that name before.
    @discardableResult
    public func put(_ named: NamedPipeline) throws(PipelineLibraryError) -> Bool {
        try writes.sync { Result { () throws(PipelineLibraryError) in try store(named) } }.get()
    }

    /// Stores `named`; runs on `writes`, so stores and deletions run one at a time and the files and `entries` agree.
    private func store(_ named: NamedPipeline) throws(PipelineLibraryError) -> Bool {
        if let path = entries.withLock({ $0.configured[named.name]?.configuredAt }) {
            throw .readOnly(name: named.name, path: path)
        }
        do {
            if let storeDirectory {
                try Directories.create(storeDirectory, mode: 0o700)
                try Files.replaceAtomically(storeDirectory + "/" + named.name + ".json", with: named.json.jsonBytes + [UInt8(ascii: "\n")])
            }
        } catch {
            throw .storage(name: named.name, reason: "\(error)")
        }
        return entries.withLock { $0.stored.updateValue(named, forKey: named.name) == nil }
    }

    /// `put`, on the library's own queue, off the caller's thread; `completion` is called there.
    public func put(_ named: NamedPipeline, completion: @escaping @Sendable (Result<Bool, PipelineLibraryError>) -> Void) {
        writes.async {
            completion(Result { () throws(PipelineLibraryError) in try self.store(named) })
        }
    }

    /// Deletes the stored pipeline `name`. Refused for a configured one; notFound when there is none. Blocks on the
    /// disk: from an event loop, call `delete(_:completion:)`.
    public func delete(_ name: String) throws(PipelineLibraryError) {
        try writes.sync { Result { () throws(PipelineLibraryError) in try remove(name) } }.get()
    }

    /// Deletes `name`; runs on `writes`, as `store` does.
    private func remove(_ name: String) throws(PipelineLibraryError) {
        let (configured, isStored) = entries.withLock { ($0.configured[name]?.configuredAt, $0.stored[name] != nil) }
        if let configured { throw .readOnly(name: name, path: configured) }
        guard isStored else { throw .notFound(name: name) }
        if let storeDirectory {
            let path = storeDirectory + "/" + name + ".json"
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .storage(name: name, reason: SystemError("cannot delete \(path)").description)
            }
        }
        entries.withLock { $0.stored[name] = nil }
    }

    /// `delete`, on the library's own queue, off the caller's thread; `completion` is called there.
    public func delete(_ name: String, completion: @escaping @Sendable (Result<Void, PipelineLibraryError>) -> Void) {
        writes.async {
            completion(Result { () throws(PipelineLibraryError) in try self.remove(name) })
        }
    }

    /// Reads the configured directory again (a reload). Returns the names whose pipeline changed, each with what
    /// it is now (nil: gone).
    public func reloadConfigured() -> [String: NamedPipeline?] {
        let fresh = configuredDirectory.map { Self.read($0, what: "configured", logger: logger) } ?? [:]
        return entries.withLock { entries in
            var changes: [String: NamedPipeline?] = [:]
            for name in Set(entries.configured.keys).union(fresh.keys) {
                let before = entries.configured[name]?.named ?? entries.stored[name]
                let after = fresh[name]?.named ?? entries.stored[name]
                if before != after { changes[name] = .some(after) }
            }
            entries.configured = fresh
            return changes
        }
    }

    /// The pipelines in `directory`'s `*.json` files, by name; a file's name must be its pipeline's name.
    private static func read(_ directory: String, what: String, logger: Logger) -> [String: Entry] {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var found: [String: Entry] = [:]
        for file in files.sorted() where file.hasSuffix(".json") && !file.hasPrefix(".") {
            let path = directory + "/" + file
            do {
                let named = try NamedPipeline(decoding: try JSONParser.parse(try Files.readAll(path)))
                guard named.name + ".json" == file else {
                    logger.error(
                        "skipping the \(what) pipeline file \(path): it names the pipeline \"\(named.name)\"; name the file \(named.name).json")
                    continue
                }
                found[named.name] = Entry(named: named, configuredAt: what == "configured" ? path : nil)
            } catch {
                logger.error("skipping the \(what) pipeline file \(path): \(error)")
            }
        }
        return found
    }
}

/// Why the library refused a change.
public enum PipelineLibraryError: Error, Sendable, CustomStringConvertible {
    case readOnly(name: String, path: String)
    case notFound(name: String)
    case storage(name: String, reason: String)

    public var description: String {
        switch self {
        case .readOnly(let name, let path):
            "the pipeline \"\(name)\" is configured in \(path) and is read-only here; edit that file and reload depotd (systemctl reload depotd)"
        case .notFound(let name):
            "no pipeline is called \"\(name)\"; pipelines.list names those there are"
        case .storage(let name, let reason):
            "the pipeline \"\(name)\" could not be stored: \(reason)"
        }
    }
}
