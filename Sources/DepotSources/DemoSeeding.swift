import DepotCore
import DepotPlatform

/// The source depotd uses when none is configured: `items.json` in its state directory, created from
/// the bundled demo collection the first time, so a newcomer needs nothing to start.
public enum DemoSeeding {
    public static let fileName = "items.json"

    /// Returns the path of the default collection file in `stateDirectory`, creating the directory
    /// (mode 0700) and seeding the file with the demo collection when it does not exist yet.
    /// An existing file is left as it is, even when it is empty.
    /// - Returns: the path, and whether it was seeded now.
    public static func prepareDefaultFile(in stateDirectory: String) throws -> (path: String, seeded: Bool) {
        let path = stateDirectory.hasSuffix("/") ? stateDirectory + fileName : stateDirectory + "/" + fileName
        do {
            try Directories.create(stateDirectory, mode: 0o700)
        } catch {
            throw SourceError(.unavailable, "cannot prepare the state directory: \(error)")
        }
        if Directories.exists(path) {
            return (path, false)
        }
        do {
            try Files.replaceAtomically(path, with: Array(DemoCollection.json.utf8))
        } catch {
            throw SourceError(.unavailable, "cannot seed the demo collection: \(error)")
        }
        return (path, true)
    }
}
