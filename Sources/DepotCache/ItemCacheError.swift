/// Why the cache cannot be used, naming the file and what the user can do about it.
public struct ItemCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// The file was written by a newer depotd: its schema has migrations this one does not know.
        case newerSchema(unknownMigrations: [String])
        /// SQLite failed while doing `operation` ("open", "read", "save to", …); `reason` is SQLite's message.
        case database(operation: String, reason: String)
    }

    /// The cache file.
    public let path: String
    public let problem: Problem

    public init(path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .newerSchema(let unknownMigrations):
            "the cache \(path) was written by a newer depotd (schema \(unknownMigrations.joined(separator: ", ")), "
                + "unknown to this one); run the newer depotd, or move the file away and restart: "
                + "it is only a cache, and depotd starts with an empty one"
        case .database(let operation, let reason):
            "cannot \(operation) the cache \(path): \(reason); check that depotd may read and write the file and "
                + "its directory, or move the file away and restart (it is only a cache)"
        }
    }
}
