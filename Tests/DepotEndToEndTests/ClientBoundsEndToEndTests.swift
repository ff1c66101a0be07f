import DepotClient
import DepotJSON
import DepotTestSupport
import DepotWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The findings of issue 15, each reproduced against the real daemon by an unprivileged uid (nobody, through
/// setpriv) — root is exempt from the per-user bounds — and each now bounded: what the uid's connections hold
/// stays within --max-memory-per-user (as `stats` counts it), the connection that takes more is cut off with a
/// logged reason, and another client is answered meanwhile.
@Suite("depotd: one user's connections cannot hold its memory without bound")
struct ClientBoundsEndToEndTests {
    static let bound = 2 << 20

    /// Runs `script` (Python) as nobody with the socket's path as its argument; it prints "ready" once it has
    /// done its worst, and is stopped by the test.
    static func asNobody(_ script: String, _ daemon: Daemon, _ arguments: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            "/usr/bin/setpriv", AccessEndToEndTests.nobody + ["/usr/bin/python3", "-c", script, daemon.socketPath] + arguments,
            environment: [:])
    }

    /// A daemon whose socket nobody may use, with a collection of `items` items of about 500 bytes.
    static func withBoundedDaemon(
        items: Int, _ extra: [String] = [], _ body: @escaping @Sendable (Daemon) async throws -> Void
    ) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) runs a command as another user")
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let source = Daemon.writeItems(items, in: directory, padding: 450)
        try await withDaemon(["--source", source, "--socket-mode", "0666", "--max-memory-per-user", "\(bound)"] + extra, directory: directory, body)
    }

    /// What `stats` says now, asked as root.
    static func stats(_ daemon: Daemon) async throws -> DepotStatistics {
        try await daemon.connect().call(StatsRequest())
    }

    static func nobody(_ stats: DepotStatistics) -> DepotStatistics.User? {
        stats.users.first { $0.uid == 65534 }
    }

    @Test("connections that each hold a large unfinished line: the user's total stays bound, the one past it is told why and closed")
    func unfinishedLines() async throws {
        try await Self.withBoundedDaemon(items: 3) { daemon in
            let script = """
                socket, sys, signal = __import__('socket'), __import__('sys'), __import__('signal')
                held, told = [], 0
                for n in range(40):
                    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); held.append(s)
                    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"state","params":{"pad":"' + b'x' * 200000)
                for s in held:
                    s.settimeout(0.2)
                    try:
                        line = s.makefile('rb').readline()
                        if b'-32004' in line and b'--max-memory-per-user' in line: told += 1
                    except OSError: pass
                print("ready", told, flush=True)
                signal.pause()
                """
            let attacker = try Self.asNobody(script, daemon)
            let ready = try await attacker.waitForOutputLines(1)
            let told = Int(ready.first?.split(separator: " ").last ?? "") ?? 0
            #expect(told >= 25, "most of the 40 connections were told why they were closed: \(ready)")
            let stats = try await Self.stats(daemon)
            let held = Self.nobody(stats)?.memoryBytes ?? 0
            #expect(held <= Self.bound, "nobody's connections hold \(held) bytes, within \(Self.bound)")
            #expect(held >= Self.bound / 2, "…and the survivors still hold their lines: \(held)")
            #expect(stats.limitsHit.first { $0.limit == "maxMemoryPerUser" }?.count ?? 0 >= 25)
            try await daemon.process.waitForError(containing: "past --max-memory-per-user (\(Self.bound))")
            // Another client is served as ever.
            #expect(try await daemon.connect().call("state")["seq"] != nil)
            attacker.signal(SIGTERM)
            _ = try await attacker.waitForExit()
        }
    }

    @Test("clients that send state after state and never read: their lines wait unread, their memory stays bound")
    func unreadState() async throws {
        // 4,000 items of about 500 bytes: every state answer is about 2 MB.
        try await Self.withBoundedDaemon(items: 4000) { daemon in
            _ = try await daemon.connect().call("load")
            let script = """
                socket, sys, signal = __import__('socket'), __import__('sys'), __import__('signal')
                held = []
                line = b'{"jsonrpc":"2.0","id":1,"method":"state"}\\n' * 1000
                for n in range(10):
                    s = socket.socket(socket.AF_UNIX); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    s.connect(sys.argv[1]); held.append(s); s.setblocking(False)
                    for k in range(50):
                        try: s.send(line)
                        except BlockingIOError: break
                        except OSError: break
                print("ready", flush=True)
                signal.pause()
                """
            let attacker = try Self.asNobody(script, daemon)
            _ = try await attacker.waitForOutputLines(1)
            let stats = try await Self.stats(daemon)
            let held = Self.nobody(stats)?.memoryBytes ?? 0
            #expect(held <= Self.bound, "nobody's connections hold \(held) bytes, within \(Self.bound)")
            // Nothing waits in the queue of mutations, and another client is answered.
            #expect(try await daemon.connect().call("state")["items"]?.arrayValue?.count == 4000)
            attacker.signal(SIGTERM)
            _ = try await attacker.waitForExit()
        }
    }

    @Test("subscribers that stall at different states: each holds its own state, and past the bound the one that takes more is cut off")
    func stalledSubscribers() async throws {
        // 600 items of about 500 bytes: states of about 300 KB, so a few stalled subscribers fit the 2 MiB bound, not all 12.
        try await Self.withBoundedDaemon(items: 600) { daemon in
            let control = try await daemon.connect()
            _ = try await control.call("load")
            // Each subscriber subscribes and never reads; between two, the state changes, so each stalls at another
            // state.
            let stalled = """
                socket, sys, signal = __import__('socket'), __import__('sys'), __import__('signal')
                s = socket.socket(socket.AF_UNIX); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(sys.argv[1])
                s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"subscribe"}\\n')
                print("subscribed", flush=True)
                signal.pause()
                """
            var attackers: [ChildProcess] = []
            for n in 0..<12 {
                let attacker = try Self.asNobody(stalled, daemon)
                _ = try await attacker.waitForOutputLines(1)
                attackers.append(attacker)
                // A new state for the next one to stall at.
                _ = try await control.call("remove", params: ["id": .number(JSONNumber(n + 1))])
            }
            try await daemon.process.waitForError(containing: "past --max-memory-per-user (\(Self.bound))")
            let stats = try await Self.stats(daemon)
            let held = Self.nobody(stats)?.memoryBytes ?? 0
            #expect(held <= Self.bound, "nobody's subscribers hold \(held) bytes, within \(Self.bound)")
            let survivors = Self.nobody(stats)?.connections ?? 0
            #expect(survivors < 12, "some were cut off")
            #expect(survivors >= 1 && Self.nobody(stats)?.subscriptions == survivors, "those within the bound are still subscribed")
            #expect(try await control.call("state")["items"]?.arrayValue?.count == 588)
            for attacker in attackers {
                attacker.signal(SIGTERM)
                _ = try await attacker.waitForExit()
            }
        }
    }
}
