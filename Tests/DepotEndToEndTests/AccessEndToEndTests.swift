import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Access from real credentials: depotctl run as user nobody (setpriv) against the real daemon run as root.
@Suite("depotd: access by peer credentials")
struct AccessEndToEndTests {
    /// setpriv's arguments that run a command as nobody (uid and gid 65534, no other groups).
    static let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Runs depotctl as nobody.
    static func asNobody(_ daemon: Daemon, _ arguments: [String]) async throws -> CommandResult {
        try await CommandResult.run("/usr/bin/setpriv", nobody + [Binaries.depotctl] + arguments + ["--socket", daemon.socketPath], environment: [:])
    }

    @Test("a user without write access is refused load, remove and wipe, nothing changes; a reload grants it, or withdraws read")
    func nobodyUser() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) runs a command as another user")
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let source = Daemon.writeItems(3, in: directory)
        chmod(String(source.dropFirst("file:".count)), 0o644)
        let config = directory.write("depotd.json", #"{"source": "\#(source)", "socketMode": "0666"}"#)
        try await withDaemon(["--config", config], directory: directory) { daemon in
            _ = try await daemon.connect().call("load")
            let whoami = try await Self.asNobody(daemon, ["whoami"])
            #expect(whoami.standardOutput.hasPrefix("nobody (uid 65534), gid 65534"), "\(whoami.standardOutput)\(whoami.standardError)")
            #expect(whoami.standardOutput.hasSuffix("may: read\n"))
            for (command, level) in [(["wipe"], "admin"), (["remove", "1"], "write"), (["load"], "write")] {
                let refused = try await Self.asNobody(daemon, command)
                #expect(refused.status == 1, "\(command)")
                #expect(
                    refused.standardError.contains("forbidden: \(command[0]) needs \(level) access, and uid 65534 has only read access"),
                    "\(refused.standardError)")
            }
            #expect(try await daemon.connect().call("state")["items"]?.arrayValue?.count == 3, "nothing changed")
            #expect(try await Self.asNobody(daemon, ["state"]).status == 0, "reading needs nothing more")

            // A watcher as nobody, then a reload that grants nobody write access.
            let watcher = try ChildProcess(
                "/usr/bin/setpriv", Self.nobody + [Binaries.depotctl, "watch", "--json", "--socket", daemon.socketPath], environment: [:])
            _ = try await watcher.waitForOutputLines(1)
            directory.write("depotd.json", #"{"source": "\#(source)", "socketMode": "0666", "access": {"write": ["user:nobody"]}}"#)
            daemon.process.signal(SIGHUP)
            try await daemon.process.waitForError(containing: "the access setting changed")
            let removed = try await Self.asNobody(daemon, ["remove", "1"])
            #expect(removed.status == 0, "\(removed.standardError)")
            // Logged with who asked and how it ended.
            try await daemon.process.waitForError(containing: "remove 1: done")
            let line = daemon.process.standardError.value.split(separator: "\n").last { $0.contains("remove 1: done") } ?? ""
            #expect(line.contains("peer_uid=65534") && line.contains("peer_gid=65534") && line.contains("peer_comm=depotctl"), "\(line)")

            // Read withdrawn: the watcher's subscription ends, and it is told why.
            directory.write("depotd.json", #"{"source": "\#(source)", "socketMode": "0666", "access": {"read": ["user:root"]}}"#)
            daemon.process.signal(SIGHUP)
            #expect(try await watcher.waitForExit() == 1)
            #expect(watcher.standardError.value.contains("the subscription ended: read access was withdrawn"), "\(watcher.standardError.value)")
            let state = try await Self.asNobody(daemon, ["state"])
            #expect(state.status == 1)
            #expect(state.standardError.contains("forbidden: state needs read access, and uid 65534 has no access"))
        }
    }

    @Test("one uid may hold --max-connections-per-user connections; the next gets one limitExceeded line; root is exempt")
    func perUserConnections() async throws {
        let directory = TemporaryDirectory()
        chmod(directory.path, 0o755)
        let source = Daemon.writeItems(2, in: directory)
        try await withDaemon(["--source", source, "--socket-mode", "0666", "--max-connections-per-user", "2"], directory: directory) { daemon in
            let script = """
                from socket import socket, AF_UNIX
                from sys import argv
                held = []
                for n in range(3):
                    s = socket(AF_UNIX); s.connect(argv[1]); held.append(s)
                    try:
                        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"whoami"}\\n')
                    except BrokenPipeError:
                        pass  # one over the bound: depotd may have written its line and closed before this
                    print(s.makefile().readline().strip(), flush=True)
                """
            let run = try await CommandResult.run(
                "/usr/bin/setpriv", Self.nobody + ["/usr/bin/python3", "-c", script, daemon.socketPath], environment: [:])
            let lines = run.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(run.standardOutput)\(run.standardError)")
            #expect(lines.prefix(2).allSatisfy { $0.contains(#""uid":65534"#) })
            #expect(lines.last?.contains(#""code":-32004"#) == true)
            #expect(lines.last?.contains("uid 65534 holds 2 connections to depotd, the most one user may") == true)
            // Root (this test) is not held to it.
            var connections: [DepotConnection] = []
            for _ in 0..<4 {
                let connection = try await daemon.connect()
                _ = try await connection.call("state")
                connections.append(connection)
            }
        }
    }
}
