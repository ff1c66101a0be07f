import DepotCache
import DepotCore
import DepotTestSupport
import Foundation
import Testing
import depot_cache_writer

#if canImport(Glibc)
import Glibc
#endif

/// `kill -9` at random moments while a writer saves lists in a loop must never leave a cache that fails to
/// open or holds a half-written list.
@Suite("ItemCache crash safety")
struct CrashSafetyTests {
    /// 50 by default; `DEPOT_CACHE_KILLS=500` for a longer run.
    static let kills = ProcessInfo.processInfo.environment["DEPOT_CACHE_KILLS"].flatMap { Int($0) } ?? 50

    @Test("killed with SIGKILL many times while saving, the cache always opens with one whole list")
    func killedWhileSaving() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("cache.sqlite")
        let writer = Binaries.folder + "/depot-cache-writer"
        var random = SplitMix64(seed: 0x5EED_CAC4E)
        var failures: [String] = []
        var midSave = 0
        var lastSaved = 0

        for kill in 1...Self.kills {
            let child = try ChildProcess(writer, [path], environment: [:])
            // Wait for the writer's own word that it got this far (1 to 6 lines: "saving g" or "saved g"),
            // then kill it at once: wherever it then is, inside a save or between two.
            let lines = try await child.waitForOutputLines(Int.random(in: 1...6, using: &random))
            child.signal(SIGKILL)
            let status = try await child.waitForExit()
            guard status == 128 + SIGKILL else {
                failures.append("kill \(kill): the writer exited with \(status) before the kill: \(child.standardError.value)")
                continue
            }
            let output = child.standardOutput.value.split(separator: "\n")
            if output.last?.hasPrefix("saving") == true { midSave += 1 }
            if let saved = output.last(where: { $0.hasPrefix("saved ") }).flatMap({ Int($0.dropFirst(6)) }) {
                lastSaved = saved
            }
            _ = lines

            do {
                let cache = try await ItemCache.open(at: path, logger: quietLogger)
                defer { try? cache.close() }
                guard let list = try await cache.read() else {
                    if lastSaved > 0 { failures.append("kill \(kill): no list after generation \(lastSaved) was saved") }
                    continue
                }
                guard let generation = CacheGeneration.generation(fromETag: list.version?.etag) else {
                    failures.append("kill \(kill): unexpected etag \(list.version?.etag ?? "nil")")
                    continue
                }
                // A save that returned before the kill is in the file; the one under way may be, whole.
                if generation < lastSaved || generation > lastSaved + 1 {
                    failures.append("kill \(kill): generation \(generation) after \(lastSaved) was reported saved")
                }
                failures += CacheGeneration.problems(
                    generation: generation,
                    items: Array(list.items.items),
                    fetchedAt: list.fetchedAt,
                    lastModified: list.version?.lastModified
                ).map { "kill \(kill): \($0)" }
                lastSaved = generation
            } catch {
                failures.append("kill \(kill): \(error)")
            }
        }
        print(
            "ItemCache crash safety: \(Self.kills) kills (\(midSave) while a save was under way), \(failures.count) failures, last generation \(lastSaved)"
        )
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(lastSaved > 0)
    }
}
