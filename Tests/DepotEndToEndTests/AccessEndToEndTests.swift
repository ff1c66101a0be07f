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
}
