import DepotCore
import DepotFreshness
import DepotPlatform
import DepotSources
import DepotTestSupport
import Logging
import Testing

@testable import DepotDaemon

@Suite("depotd's freshness at a reload: the watch in force kept, a failed one tried again")
struct FreshnessReloadTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a watch that failed (its directory missing) is set at the next reload once the file is there; a working one is kept")
    func failedWatchRetried() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("later/items.json")
        let settings = try resolve(["--source", "file:" + path])
        let source = FileSource(path: path)
        try await withSourceLoop { sourceLoop in
            let freshness = Freshness(
                settings: settings, source: source, repository: Repository(source: source, logger: Self.quiet), clock: sourceLoop.clock,
                logger: Self.quiet)
            #expect(freshness.watcher.status.watchedFile == nil)
            #expect(freshness.watcher.status.problem != nil, "its directory is missing")

            try Directories.create(directory.file("later"), mode: 0o755)
            directory.write("later/items.json", "[]")
            freshness.apply(settings, source: source)
            #expect(freshness.watcher.status.watchedFile == path, "tried again at the reload")
            #expect(freshness.watcher.status.problem == nil)

            freshness.apply(try resolve(["--source", "file:" + path, "--no-watch-file"]), source: source)
            #expect(freshness.watcher.status.watchedFile == nil, "watching turned off")
        }
    }
}
