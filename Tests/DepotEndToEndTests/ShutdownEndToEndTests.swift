import DepotCache
import DepotClient
import DepotCore
import DepotJSON
import DepotPlatform
import DepotTestSupport
import Foundation
import Logging
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM while a removal waits on a slow source: depotd kills nothing. The removal under way gets its grace
/// (8 s) and then is cancelled; only after that is the cache closed, so it holds one whole list — the removal when
/// the source confirmed it in time, the list from before when it did not.
@Suite("depotd: stopping in the middle of a slow removal")
struct ShutdownEndToEndTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An HTTP source of items 1, 2, 3 whose DELETE is answered as `deletion` says; a confirmed one removes the item.
    static func source(deletion: @escaping @Sendable () -> HTTPTestServer.Reply) async throws -> (HTTPTestServer, Locked<[Int]>) {
        let items = Locked([1, 2, 3])
        let server = try await HTTPTestServer.start { request in
            switch request.method {
            case "GET":
                return .respond(status: 200, body: "[" + items.withLock { $0 }.map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]")
            case "DELETE":
                return deletion()
            default:
                return .respond(status: 404)
            }
        }
        return (server, items)
    }

    /// Starts depotd on `server` with a cache, loads, asks to remove item 2 and waits until the DELETE is at the
    /// source; then sends SIGTERM and waits until depotd says it waits for the removal.
    static func stopDuringRemoval(_ server: HTTPTestServer, directory: TemporaryDirectory) async throws -> Daemon {
        let arguments = ["--source", server.url("/items"), "--delete-url", server.url("/items/{id}"), "--request-timeout", "600"]
        let daemon = try await Daemon.start(arguments, directory: directory)
        _ = try await daemon.connect().call("load")
        let remover = try await daemon.connectLines()
        try await remover.send(#"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":2}}"#)
        try await withTimeout(.seconds(60), "the DELETE to reach the source") { await server.requests.wait { $0.contains { $0.method == "DELETE" } } }
        daemon.process.signal(SIGTERM)
        try await daemon.process.waitForError(containing: "stopping: waiting up to 8.0 seconds for the change under way")
        return daemon
    }

    /// The ids in the cache depotd left in `directory`, read by opening it as the next depotd would.
    static func cachedIDs(in directory: TemporaryDirectory) async throws -> [String]? {
        let cache = try await ItemCache.open(at: directory.file("state/depot/cache.sqlite"), logger: quiet)
        defer { try? cache.close() }
        return try await cache.read()?.items.items.map(\.id)
    }

    @Test("the source confirms within the grace: the removal is finished and kept, then depotd exits cleanly")
    func confirmedWithinGrace() async throws {
        let held = HeldReplies()
        let (server, items) = try await Self.source { .held(held, status: 204) }
        defer { Task { await server.stop() } }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try await Self.stopDuringRemoval(server, directory: directory)
        items.withLock { $0.removeAll { $0 == 2 } }
        held.release()
        #expect(try await daemon.process.waitForExit() == 0, "\(daemon.process.standardError.value)")
        #expect(try await Self.cachedIDs(in: directory) == ["1", "3"], "the confirmed removal is on disk")
        #expect(!daemon.process.standardError.value.contains("did not finish"))
        daemon.ledger.expectConformance()
    }

    @Test("the source never answers: after the grace the removal is cancelled, and the cache holds the list from before, whole")
    func cancelledAfterGrace() async throws {
        let (server, _) = try await Self.source { .hang }
        defer { Task { await server.stop() } }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try await Self.stopDuringRemoval(server, directory: directory)
        #expect(try await daemon.process.waitForExit() == 0, "\(daemon.process.standardError.value)")
        let log = daemon.process.standardError.value
        #expect(log.contains("stopping: the change under way did not finish within 8.0 seconds of the shutdown; cancelled"), "\(log)")
        #expect(try await Self.cachedIDs(in: directory) == ["1", "2", "3"], "the unconfirmed removal is not on disk")
        daemon.ledger.expectConformance()
    }
}
