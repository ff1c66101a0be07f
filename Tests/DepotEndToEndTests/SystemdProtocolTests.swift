import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// depotd's side of the systemd protocols, checked without systemd: a stand-in notification socket
/// receives what depotd sends, and a listening socket passed as fd 3 stands in for socket activation.
/// (The same behaviour under a real systemd is tested in DepotSystemdIntegrationTests.)
@Suite("depotd speaks systemd's protocols")
struct SystemdProtocolTests {
    @Test("READY=1 comes with the status once the initial load is done; SIGTERM sends STOPPING=1")
    func readyAndStopping() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let notify = try NotifySocket(path: directory.file("notify"))
        let source = Daemon.writeItems(3, in: directory)
        let daemon = try ChildProcess(
            Binaries.depotd,
            ["--socket", directory.file("depotd.sock"), "--source", source],
            environment: Daemon.environment(in: directory).merging(["NOTIFY_SOCKET": notify.address]) { _, new in new }
        )
        let ready = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
        #expect(NotifySocket.fields(ready.last!)["STATUS"] == "success · 3 items · 0 subscribers · seq 2")
        daemon.signal(SIGTERM)
        let stopping = try await notify.receive(until: { NotifySocket.fields($0)["STOPPING"] == "1" })
        #expect(NotifySocket.fields(stopping.last!)["STATUS"]?.hasPrefix("stopping") == true)
        #expect(try await daemon.waitForExit() == 0)
    }

    @Test("STATUS follows the state and the number of subscribers")
    func statusFollowsSubscribers() async throws {
        let directory = TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify"))
        try await withDaemonProcess(
            ["--source", Daemon.writeItems(2, in: directory)], directory: directory, environment: ["NOTIFY_SOCKET": notify.address]
        ) { daemon in
            _ = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
            let first = try await daemon.connect().subscribe()
            let second = try await daemon.connect().subscribe()
            _ = try await notify.receive(until: { NotifySocket.fields($0)["STATUS"] == "success · 2 items · 2 subscribers · seq 2" })
            _ = try await daemon.connect().call("wipe")
            _ = try await notify.receive(until: { NotifySocket.fields($0)["STATUS"] == "idle · 2 subscribers · seq 3" })
            _ = (first, second)
        }
    }

    @Test("SIGHUP: RELOADING=1 with MONOTONIC_USEC, the new source is loaded, READY=1; a broken config keeps the old one and says so")
    func reload() async throws {
        let directory = TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify"))
        _ = Daemon.writeItems(2, in: directory, name: "first.json")
        _ = Daemon.writeItems(5, in: directory, name: "second.json")
        let config = directory.write("depotd.json", #"{"source": "file:first.json"}"#)
        try await withDaemonProcess(["--config", config], directory: directory, environment: ["NOTIFY_SOCKET": notify.address]) { daemon in
            _ = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
            let watcher = try await daemon.connect().subscribe()

            directory.write("depotd.json", #"{"source": "file:second.json", "logLevel": "debug"}"#)
            daemon.process.signal(SIGHUP)
            let reload = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
            let reloading = try #require(reload.first { NotifySocket.fields($0)["RELOADING"] == "1" })
            #expect(NotifySocket.fields(reloading)["MONOTONIC_USEC"].flatMap(UInt64.init) != nil)
            for await change in watcher where change.state["items"]?.arrayValue?.count == 5 {
                break
            }
            try await daemon.process.waitForError(containing: "reloaded the configuration from \(config)")

            directory.write("depotd.json", #"{"source": 42}"#)
            daemon.process.signal(SIGHUP)
            let failed = try await notify.receive(until: { NotifySocket.fields($0)["READY"] == "1" })
            let status = NotifySocket.fields(failed.last!)["STATUS"] ?? ""
            #expect(status.hasPrefix("reload failed, previous configuration kept: config file \(config): \"source\" must be a string"))
            #expect(status.hasSuffix("success · 5 items · 1 subscriber · seq 4"))
            try await daemon.process.waitForError(containing: "reload failed; still running with the previous configuration")
            #expect(try await daemon.connect().call("state")["items"]?.arrayValue?.count == 5, "still serving the last good configuration")
        }
    }

    @Test("with WATCHDOG_USEC set, WATCHDOG=1 keeps coming")
    func watchdogKeepAlives() async throws {
        let directory = TemporaryDirectory()
        let notify = try NotifySocket(path: directory.file("notify"))
        try await withDaemonProcess(
            ["--source", Daemon.writeItems(1, in: directory)], directory: directory,
            environment: ["NOTIFY_SOCKET": notify.address, "WATCHDOG_USEC": "400000"]
        ) { _ in
            var keepAlives = 0
            while keepAlives < 3 {
                if try await notify.receive() == "WATCHDOG=1" { keepAlives += 1 }
            }
            #expect(keepAlives == 3)
        }
    }

    @Test("a socket passed as fd 3 (socket activation) is served, and left in place on exit")
    func socketActivation() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("activated.sock")
        let listener = try ListeningSocket(path: path)
        let daemon = try ChildProcess(
            "/bin/sh",
            [
                "-c", "LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=depotd exec \"$0\" \"$@\"", Binaries.depotd, "--source",
                Daemon.writeItems(4, in: directory),
            ],
            environment: Daemon.environment(in: directory),
            descriptors: [3: listener.fd]
        )
        try await daemon.waitForError(containing: "listening on \(path), the socket systemd passed")
        let ledger = ProtocolLedger()
        defer { ledger.expectConformance() }
        let state = try await DepotConnection.connect(to: path, tap: ledger.checker()).call("load")
        #expect(state["count"] == 4)
        daemon.signal(SIGTERM)
        #expect(try await daemon.waitForExit() == 0)
        #expect(FileManager.default.fileExists(atPath: path), "the socket belongs to systemd, which removes it")
    }
}

/// Runs `body` with depotd started with extra environment variables, and always cleans up after it.
func withDaemonProcess(
    _ arguments: [String],
    directory: TemporaryDirectory,
    environment: [String: String],
    _ body: @escaping @Sendable (Daemon) async throws -> Void
) async throws {
    let daemon = try await Daemon.start(arguments, directory: directory, environment: environment)
    do {
        try await withTimeout(.seconds(120), "the test's exchanges with depotd") { try await body(daemon) }
        await daemon.cleanUp()
    } catch {
        await daemon.cleanUp()
        throw error
    }
}
