import DepotCache
import DepotCore
import Foundation
import Logging

/// Saves lists into a cache in a loop until it is killed, for the crash-safety test (not a tool for users).
///
/// `depot-cache-writer PATH`: opens the cache at PATH, continues after the generation found there, and for
/// each generation g saves `CacheGeneration.items(g)` (every item tagged g), removes its first item when g is
/// a multiple of 4, and prints `saving g` before and `saved g` after, so the test can kill it mid-write.
@main
struct CacheWriter {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 1, let path = arguments.first else {
            FileHandle.standardError.write(Data("usage: depot-cache-writer PATH\n".utf8))
            exit(64)
        }
        do {
            let cache = try await ItemCache.open(at: path, logger: Logger(label: "depot-cache-writer"))
            let found = try await cache.read()
            var generation = (CacheGeneration.generation(fromETag: found?.version?.etag) ?? 0) + 1
            while true {
                say("saving \(generation)")
                try await cache.save(
                    CachedCollection(
                        items: CacheGeneration.items(generation),
                        fetchedAt: CacheGeneration.fetchedAt(generation),
                        version: SourceVersion(
                            etag: CacheGeneration.etag(generation),
                            lastModified: CacheGeneration.lastModified(generation)
                        ),
                        source: "test:generations",
                        idField: "id"
                    )
                )
                if CacheGeneration.removesFirstItem(generation) {
                    try await cache.remove(id: CacheGeneration.itemID(generation, 0))
                }
                say("saved \(generation)")
                generation += 1
            }
        } catch {
            FileHandle.standardError.write(Data("depot-cache-writer: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
