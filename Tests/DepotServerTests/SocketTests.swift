import DepotClient
import DepotCore
import DepotJSON
import DepotServer
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Server: the socket file and shutdown")
struct SocketTests {
    @Test("the socket gets the configured mode", arguments: [UInt32(0o660), 0o600, 0o666])
    func socketMode(mode: UInt32) async throws {
        let server = try await RunningServer.start(socketMode: mode)
        var status = stat()
        #expect(lstat(server.socketPath, &status) == 0)
        #expect(UInt32(status.st_mode) & 0o777 == mode)
        await server.stop()
    }

    @Test("a stale socket left by a dead daemon is replaced")
    func staleSocketIsReplaced() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("depotd.sock")
        // A socket bound and closed without unlinking: what a killed daemon leaves behind.
        _ = try ListeningSocket(path: path)
        #expect(FileExists.at(path))

        let server = try await RunningServer.start(directory: directory)
        let connection = try await server.connect()
        #expect(try await connection.call("state")["seq"] == 0)
        await server.stop()
    }

    @Test("a live socket is never stolen: a second server on the same path fails with a clear message")
    func liveSocketIsRefused() async throws {
        let first = try await RunningServer.start()
        await #expect {
            _ = try await RunningServer.start(directory: first.directory)
        } throws: { error in
            String(describing: error).contains("another depotd is already listening on \(first.socketPath)")
        }
        let connection = try await first.connect()
        #expect(try await connection.call("state")["seq"] == 0, "the first server still answers")
        await first.stop()
    }

    @Test("a path that is not a socket is refused and left as it is")
    func regularFileIsRefused() async throws {
        let directory = TemporaryDirectory()
        directory.write("depotd.sock", "precious data")
        await #expect {
            _ = try await RunningServer.start(directory: directory)
        } throws: { error in
            String(describing: error).contains("exists and is not a socket")
        }
        #expect(directory.read("depotd.sock") == "precious data")
        directory.remove()
    }

    @Test("the socket's own directory is created; a missing directory above it is a mistyped path, refused")
    func createsOwnDirectoryOnly() async throws {
        let server = try await RunningServer.start(socketName: "depot/depotd.sock")
        #expect(server.socketPath.hasSuffix("/depot/depotd.sock"))
        let connection = try await server.connect()
        #expect(try await connection.call("state")["status"] == "idle")
        await server.stop()

        let directory = TemporaryDirectory()
        defer { directory.remove() }
        await #expect {
            _ = try await RunningServer.start(directory: directory, socketName: "typo/depot/depotd.sock")
        } throws: { error in
            String(describing: error).contains("\(directory.file("typo")) does not exist")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("typo")))
    }

    @Test("graceful shutdown finishes in-flight requests, closes every connection and removes the socket")
    func gracefulShutdown() async throws {
        let server = try await RunningServer.start()
        let gate = server.source.holdNextFetch()
        let watcher = try await server.connect()
        let subscription = try await watcher.subscribe()
        let caller = try await server.connect()
        let pendingLoad = Task { try await caller.call("load") }
        try await withTimeout { await server.source.calls.wait { $0.fetchesStarted == 1 } }

        await server.triggerGracefulShutdown()
        gate.open()
        let answer = try await withTimeout { try await pendingLoad.value }
        #expect(answer["status"] == "success", "the load in flight was answered before the connection closed")

        let seen = try await withTimeout {
            var seqs: [Int] = []
            for await change in subscription { seqs.append(change.seq ?? -1) }
            return seqs
        }
        #expect(seen.first == 0, "the subscriber's sequence ended when its connection closed")
        try await withTimeout { try await server.waitUntilStopped() }
        #expect(!FileExists.at(server.socketPath), "the socket file is removed")
        server.directory.remove()
    }
}

@Suite("Server: shutdown with a stalled subscriber")
struct StalledShutdownTests {
    @Test("a subscriber that stopped reading does not hold up shutdown")
    func stalledSubscriberDoesNotHoldShutdown() async throws {
        // The fallback time-out is an hour: if the stalled connection held shutdown, the test's own limit would fail it.
        let server = try await RunningServer.start(source: SlowSubscriberTests.bulkySource(), shutdownTimeout: .seconds(3600))
        let stalled = try server.rawSocket(receiveBufferBytes: 4096)
        try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
        let control = try await server.connect()
        for _ in 0..<20 {
            _ = try await control.call("load")
        }
        await server.triggerGracefulShutdown()
        try await withTimeout(.seconds(60), "the server to stop") { try await server.waitUntilStopped() }
        #expect(!FileExists.at(server.socketPath))
        server.directory.remove()
    }
}

enum FileExists {
    static func at(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
