import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import DepotWire
import Foundation
import Testing

@Suite("depotctl: output and exit status")
struct DepotctlTests {
    /// A daemon on the demo collection, loaded.
    static func withDemo(_ body: @escaping @Sendable (Daemon) async throws -> Void) async throws {
        try await withDaemon { daemon in
            let connection = try await daemon.connect()
            // The initial load may still be running; a load joins it or follows it.
            _ = try await connection.call("load")
            try await body(daemon)
        }
    }

    @Test("state prints a status line and a table of the items")
    func stateTable() async throws {
        try await Self.withDemo { daemon in
            let result = try await daemon.depotctl(["state"])
            #expect(result.status == 0)
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            try #require(lines.count == 2 + 151, "\(result.standardError)")
            #expect(lines[0].hasPrefix("success · 151 items · source, fetched 20"), "\(lines[0])")
            #expect(lines[1] == "ID   NAME        TYPES")
            #expect(lines[2] == "1    Bulbasaur   grass, poison")
            #expect(lines.contains("25   Pikachu     electric"))
            #expect(result.standardError.isEmpty)
        }
    }

    @Test("stats: a table of users and subscriptions and the limits reached; --json as sent; --prometheus for a scraper")
    func stats() async throws {
        try await withDaemon(["--max-subscriptions", "1"]) { daemon in
            let subscriber = try await daemon.connect()
            _ = try await subscriber.call("load")
            _ = try await subscriber.call("subscribe")
            // A second subscription on that connection is past --max-subscriptions.
            await #expect(throws: DepotClientError.self) { try await subscriber.call("subscribe") }
            let text = try await daemon.depotctl(["stats"])
            #expect(text.status == 0, "\(text.standardError)")
            let lines = text.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first?.hasPrefix("seq ") == true && lines.first?.contains("success, 151 items") == true, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("UID ") && $0.contains("MEMORY") })
            #expect(lines.contains { $0.hasPrefix("SUBSCRIPTION ") })
            #expect(lines.contains("limits reached: maxSubscriptions 1"))

            let json = try await daemon.depotctl(["stats", "--json"])
            let stats = try DepotStatistics(decoding: JSONParser.parse(json.standardOutput))
            #expect(stats.subscriptions.count == 1 && stats.subscriptions.first?.uid == getuid())
            #expect(stats.connections >= 2, "the subscriber and depotctl")
            #expect(stats.fetches.calls >= 1 && stats.cacheBytes ?? 0 > 0 && stats.residentBytes ?? 0 > 0 && stats.openFiles ?? 0 > 0)

            let prometheus = try await daemon.depotctl(["stats", "--prometheus"])
            #expect(prometheus.standardOutput.contains("\ndepot_items 151\n"))
            #expect(prometheus.standardOutput.contains(#"depot_limit_reached_total{limit="maxSubscriptions"} 1"#))
        }
    }

    @Test("--json prints the state exactly as the daemon sent it, on one line")
    func stateJSON() async throws {
        try await Self.withDemo { daemon in
            let result = try await daemon.depotctl(["state", "--json"])
            #expect(result.status == 0)
            #expect(result.standardOutput.filter { $0 == "\n" }.count == 1)
            let printed = try JSONParser.parse(result.standardOutput)
            let direct = try await daemon.connect().call("state")
            #expect(printed == direct)
        }
    }

    @Test("get prints the item; an unknown id exits 1 with one line on stderr")
    func get() async throws {
        try await Self.withDemo { daemon in
            let found = try await daemon.depotctl(["get", "25"])
            #expect(found.status == 0)
            #expect(try JSONParser.parse(found.standardOutput) == ["id": 25, "name": "Pikachu", "types": ["electric"]])
            #expect(found.standardOutput.contains("\n  \"name\": \"Pikachu\""), "human output is indented")

            let missing = try await daemon.depotctl(["get", "999"])
            #expect(missing.status == 1)
            #expect(missing.standardOutput.isEmpty)
            #expect(missing.standardError == "depotctl: no item with id \"999\" among the 151 loaded items (-32003)\n")
        }
    }

    @Test("remove --optimistic removes the item from the state and the file; removing it again exits 1")
    func remove() async throws {
        try await Self.withDemo { daemon in
            let removed = try await daemon.depotctl(["remove", "25", "--optimistic"])
            #expect(removed.status == 0)
            #expect(removed.standardOutput.hasPrefix("removed 25 · success · 150 items · source, fetched 20"), "\(removed.standardOutput)")
            let file = try #require(daemon.directory.read("state/depot/items.json"))
            #expect(!file.contains("Pikachu"))

            let again = try await daemon.depotctl(["remove", "25"])
            #expect(again.status == 1)
            #expect(again.standardError.hasSuffix("has no item with id \"25\" (-32003)\n"))
        }
    }

    @Test("load and wipe print what they did")
    func loadAndWipe() async throws {
        try await Self.withDemo { daemon in
            let wiped = try await daemon.depotctl(["wipe"])
            #expect(wiped.status == 0)
            #expect(wiped.standardOutput.hasPrefix("wiped · idle · seq "))
            let loaded = try await daemon.depotctl(["load", "--json"])
            #expect(loaded.status == 0)
            #expect(try JSONParser.parse(loaded.standardOutput)["count"] == 151, "the answer gives the count")
            #expect(try JSONParser.parse(loaded.standardOutput)["items"] == nil, "and not the items")
            let withItems = try await daemon.depotctl(["load", "--json", "--items"])
            #expect(try JSONParser.parse(withItems.standardOutput)["items"]?.arrayValue?.count == 151, "unless asked")
            let line = try await daemon.depotctl(["load"])
            #expect(line.standardOutput.hasPrefix("loaded · success · 151 items · "), "the line counts them either way")
        }
    }

    @Test("call sends any method with params and prints the result; bad params are caught before sending")
    func call() async throws {
        try await Self.withDemo { daemon in
            let result = try await daemon.depotctl(["call", "get", #"{"id": 150}"#, "--json"])
            #expect(result.status == 0)
            #expect(result.standardOutput == #"{"id":150,"name":"Mewtwo","types":["psychic"]}"# + "\n")

            // A method the document lacks is refused before sending (exit 64, the methods named); --no-check sends it,
            // and depotd answers -32601 (exit 1).
            let unknownMethod = try await daemon.depotctl(["call", "explode"])
            #expect(unknownMethod.status == 64)
            #expect(unknownMethod.standardError.contains("explode is not a method of the protocol's document"), "\(unknownMethod.standardError)")
            #expect(unknownMethod.standardError.contains("the methods are apply, get, "))
            let sentAnyway = try await daemon.depotctl(["call", "explode", "--no-check"])
            #expect(sentAnyway.status == 1)
            #expect(sentAnyway.standardError.hasPrefix("depotctl: Method not found: \"explode\""), "\(sentAnyway.standardError)")

            // Checked against the document before sending: each wrong param named, exit 64, nothing sent.
            let unknownParam = try await daemon.depotctl(["call", "get", #"{"id": 1, "colour": "red"}"#])
            #expect(unknownParam.status == 64)
            #expect(
                unknownParam.standardError.contains(#"param "colour": is not a param of get (it takes id, pipeline, meta)"#),
                "\(unknownParam.standardError)")
            let wrongType = try await daemon.depotctl(["call", "remove", #"{"id": "1", "optimistic": "yes"}"#])
            #expect(wrongType.status == 64)
            #expect(wrongType.standardError.contains(#"param "optimistic": must be a boolean, found string "yes""#), "\(wrongType.standardError)")
            #expect(wrongType.standardError.contains("remove takes id, optimistic (optional)"))
            let missing = try await daemon.depotctl(["call", "remove", #"{"optimistic": true}"#])
            #expect(missing.status == 64)
            #expect(missing.standardError.contains(#"missing required param "id""#), "\(missing.standardError)")
            let emptyID = try await daemon.depotctl(["call", "get", #"{"id": ""}"#])
            #expect(emptyID.status == 64)
            #expect(emptyID.standardError.contains(#"param "id""#), "\(emptyID.standardError)")
            let notification = try await daemon.depotctl(["call", "stateChanged"])
            #expect(notification.status == 64)
            #expect(notification.standardError.contains("depotctl watch"))
            #expect(try await daemon.connect().call("state")["items"]?.arrayValue?.count == 151, "nothing was removed")

            // --no-check sends them as they are; depotd's own check answers (-32602, exit 1).
            let unchecked = try await daemon.depotctl(["call", "get", #"{"id": 1, "colour": "red"}"#, "--no-check"])
            #expect(unchecked.status == 1)
            #expect(unchecked.standardError.contains("unknown param \"colour\""), "\(unchecked.standardError)")

            let notJSON = try await daemon.depotctl(["call", "get", "{id: 1}"])
            #expect(notJSON.status == 64)
            #expect(notJSON.standardError.contains("<params> is not valid JSON"))
        }
    }

    @Test("watch --json prints each state as one line of JSON, as it happens")
    func watch() async throws {
        try await Self.withDemo { daemon in
            let watcher = try ChildProcess(
                Binaries.depotctl,
                ["watch", "--json", "--socket", daemon.socketPath],
                environment: Daemon.environment(in: daemon.directory)
            )
            let first = try await watcher.waitForOutputLines(1)
            #expect(try JSONParser.parse(first[0])["status"] == "success")
            _ = try await daemon.connect().call("wipe")
            let lines = try await watcher.waitForOutputLines(2)
            try #require(lines.count == 2)
            let second = try JSONParser.parse(lines[1])
            #expect(second["status"] == "idle")
            #expect(second["seq"]?.numberValue?.intValue == (try JSONParser.parse(lines[0])["seq"]?.numberValue?.intValue ?? -1) + 1)
            watcher.signal(SIGINT)
            _ = try await watcher.waitForExit()
        }
    }

    @Test("watch --delta prints each notification's params; a removal is one id; --since resumes after a state")
    func watchDelta() async throws {
        try await Self.withDemo { daemon in
            let environment = Daemon.environment(in: daemon.directory)
            let watcher = try ChildProcess(Binaries.depotctl, ["watch", "--delta", "--socket", daemon.socketPath], environment: environment)
            let first = try JSONParser.parse(try await watcher.waitForOutputLines(1)[0])
            #expect(first["state"]?["count"] == 151)
            #expect(first["state"]?["items"]?.arrayValue?.count == 151, "the first state comes in full")
            let removed = try await daemon.connect().call(RemoveRequest(id: "1", optimistic: true))
            let lines = try await watcher.waitForOutputLines(3)
            try #require(lines.count == 3)
            let optimistic = try JSONParser.parse(lines[1])
            #expect(optimistic["delta"]?["removed"] == ["1"])
            #expect(optimistic["state"]?["count"] == 150)
            #expect(optimistic["state"]?["items"] == nil)
            watcher.signal(SIGINT)
            _ = try await watcher.waitForExit()

            let epoch = try #require(first["state"]?["epoch"]?.stringValue)
            let seq = try #require(first["state"]?["seq"]?.numberValue?.intValue)
            let resumer = try ChildProcess(
                Binaries.depotctl, ["watch", "--delta", "--since", "\(epoch):\(seq)", "--socket", daemon.socketPath], environment: environment)
            let replayed = try await resumer.waitForOutputLines(2)
            try #require(replayed.count == 2)
            let again = try JSONParser.parse(replayed[0])
            #expect(again["state"] == optimistic["state"] && again["delta"] == optimistic["delta"], "the missed states again, exactly")
            #expect(try JSONParser.parse(replayed[1])["state"]?["seq"]?.numberValue?.intValue == removed.seq)
            // stderr is read apart from stdout: wait for the line rather than expect it already read.
            try await resumer.waitForError(containing: "resumed after \(epoch):\(seq)")
            resumer.signal(SIGINT)
            _ = try await resumer.waitForExit()

            let wrong = try await daemon.depotctl(["watch", "--since", "nonsense"])
            #expect(wrong.status == 64)
            #expect(wrong.standardError.contains("--since must be EPOCH:SEQ"))
        }
    }

    @Test("watch prints a status line per state")
    func watchHuman() async throws {
        try await Self.withDemo { daemon in
            let watcher = try ChildProcess(
                Binaries.depotctl,
                ["watch", "--socket", daemon.socketPath],
                environment: Daemon.environment(in: daemon.directory)
            )
            _ = try await watcher.waitForOutputLines(1)
            _ = try await daemon.connect().call("remove", params: ["id": "1"])
            let lines = try await watcher.waitForOutputLines(3)
            try #require(lines.count == 3)
            #expect(lines[0].hasPrefix("success · 151 items · source, fetched 20"), "\(lines[0])")
            #expect(lines[1].hasPrefix("loading · seq "))
            #expect(lines[2].hasPrefix("success · 150 items · source, fetched 20"), "\(lines[2])")
            watcher.signal(SIGINT)
            _ = try await watcher.waitForExit()
        }
    }

    @Test("watch ends when its reader does: `watch | head -1` exits 0 at once, though no new state comes")
    func watchReaderGone() async throws {
        try await Self.withDemo { daemon in
            let result = try await withTimeout(.seconds(30), "depotctl watch | head -1 to end") {
                try await CommandResult.run(
                    "/bin/bash", ["-c", #"set -o pipefail; "$0" watch --json --socket "$1" | head -1"#, Binaries.depotctl, daemon.socketPath],
                    environment: Daemon.environment(in: daemon.directory))
            }
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try JSONParser.parse(result.standardOutput)["status"] == "success")
            #expect(result.standardError.isEmpty)
        }
    }

    @Test("watch --follow goes on across a restart of depotd, says so on stderr, and prints the new run's states")
    func watchFollow() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(5, in: directory)
        let first = try await Daemon.start(["--source", source], directory: directory)
        let watcher = try ChildProcess(
            Binaries.depotctl, ["watch", "--follow", "--json", "--socket", first.socketPath], environment: Daemon.environment(in: directory))
        defer { watcher.signal(SIGKILL) }
        do {
            _ = try await first.connect().call("load")
            let before = try await watcher.waitForOutputLines(1)
            first.process.signal(SIGTERM)
            _ = try await first.process.waitForExit()
            try await withTimeout(.seconds(30), "the watcher to notice") {
                // With --json, a line that says how the watch goes is a notice, not an error.
                await watcher.standardError.wait { $0.contains(#"{"notice":{"message":"depotd closed the connection; reconnecting"}}"#) }
            }
            let second = try await Daemon.start(["--source", source], directory: directory)
            defer { Task { await second.cleanUp() } }
            try await withTimeout(.seconds(30), "the watcher to reconnect") {
                await watcher.standardError.wait { $0.contains("reconnected; cannot resume after") }
            }
            let firstEpoch = try JSONParser.parse(before[0])["epoch"]
            _ = try await second.connect().call("remove", params: ["id": "1"])
            // The new run's states arrive: the removal's success, with the new epoch and 4 items.
            try await withTimeout(.seconds(30), "the watcher to print the new run's removal") {
                await watcher.standardOutput.wait { output in
                    output.split(separator: "\n").contains { line in
                        guard let state = try? JSONParser.parse(String(line)) else { return false }
                        return state["epoch"] != firstEpoch && state["items"]?.arrayValue?.count == 4
                    }
                }
            }
            #expect(watcher.exitStatus.value == nil, "still watching")
        } catch {
            Issue.record(error)
        }
    }

    @Test("watch --count N prints N states and exits 0")
    func watchCount() async throws {
        try await Self.withDemo { daemon in
            let watcher = try ChildProcess(
                Binaries.depotctl, ["watch", "--json", "--count", "3", "--socket", daemon.socketPath],
                environment: Daemon.environment(in: daemon.directory))
            _ = try await watcher.waitForOutputLines(1)
            _ = try await daemon.connect().call("remove", params: ["id": "1"])
            let status = try await withTimeout(.seconds(30), "watch --count 3 to end") { try await watcher.waitForExit() }
            #expect(status == 0)
            let seqs = try watcher.standardOutput.value.split(separator: "\n").map { try JSONParser.parse(String($0))["seq"] }
            #expect(seqs.count == 3)
            let zero = try await daemon.depotctl(["watch", "--count", "0"])
            #expect(zero.status == 64 && zero.standardError.contains("--count must be at least 1"))
        }
    }

    @Test("global options may come before the command, as docker -H and systemctl --user take theirs")
    func globalOptionsFirst() async throws {
        try await Self.withDemo { daemon in
            let environment = Daemon.environment(in: daemon.directory)
            let state = try await CommandResult.run(Binaries.depotctl, ["--socket", daemon.socketPath, "--json", "state"], environment: environment)
            #expect(state.status == 0, "\(state.standardError)")
            #expect(try JSONParser.parse(state.standardOutput)["status"] == "success")
            let get = try await CommandResult.run(
                Binaries.depotctl, ["--json", "--socket=\(daemon.socketPath)", "get", "25"], environment: environment)
            #expect(try JSONParser.parse(get.standardOutput)["name"] == "Pikachu", "\(get.standardError)")
            let nested = try await CommandResult.run(
                Binaries.depotctl, ["--socket", daemon.socketPath, "pipeline", "list"], environment: environment)
            #expect(nested.status == 0, "\(nested.standardError)")
        }
    }

    @Test("--timeout gives up on an answer that does not come (exit 3, saying so), while reads still answer at once")
    func timeout() async throws {
        let server = try await HTTPTestServer.start { _ in .hang }
        defer { Task { await server.stop() } }
        // The source would be waited for for ten minutes: only --timeout can end the load's wait in time.
        try await withDaemon(["--source", server.url("/items"), "--no-initial-load", "--no-cache", "--request-timeout", "600"]) { daemon in
            let load = try await daemon.depotctl(["--timeout", "300ms", "load"])
            #expect(load.status == 3, "\(load.standardOutput)")
            #expect(
                load.standardError
                    == "depotctl: depotd did not answer within 300 ms (--timeout); it may be busy (a load waits for its source): try a longer --timeout\n"
            )
            try await withTimeout(.seconds(30), "the source to be asked") { await server.requests.wait { !$0.isEmpty } }
            // The daemon is loading; a read is not held up by it, within the same limit.
            let state = try await daemon.depotctl(["state", "--json", "--timeout", "5s"])
            #expect(state.status == 0, "\(state.standardError)")
            #expect(try JSONParser.parse(state.standardOutput)["status"] == "loading")
            let watch = try await daemon.depotctl(["--timeout=2.5", "watch", "--count", "1", "--json"])
            #expect(watch.status == 0, "\(watch.standardError)")
            for bad in ["0", "-1s", "soon", "5 s"] {
                let refused = try await daemon.depotctl(["state", "--timeout=\(bad)"])
                #expect(refused.status == 64, "--timeout \(bad)")
                #expect(
                    refused.standardError.contains("--timeout \"\(bad)\": write a duration such as 2.5, 500ms, 10s or 1m"), "\(refused.standardError)"
                )
            }
        }
    }

    @Test("depotctl alone and an unknown command are usage errors that name the commands; --version prints the version")
    func usage() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let environment = Daemon.environment(in: directory)
        let alone = try await CommandResult.run(Binaries.depotctl, [], environment: environment)
        #expect(alone.status == 64)
        #expect(alone.standardError.contains("SUBCOMMANDS:") && alone.standardOutput.isEmpty)
        let unknown = try await CommandResult.run(Binaries.depotctl, ["frob"], environment: environment)
        #expect(unknown.status == 64)
        #expect(
            unknown.standardError.hasPrefix("depotctl: unknown command 'frob'; the commands are state, status, get, "), "\(unknown.standardError)")
        for binary in [Binaries.depotctl, Binaries.depotd] {
            let version = try await CommandResult.run(binary, ["--version"], environment: environment)
            #expect(version.status == 0 && version.standardOutput == DepotVersion.current + "\n", "\(binary): \(version.standardOutput)")
        }
    }

    @Test("status exits 0 on a fresh success, 4 otherwise, and never fetches the items; state exits 4 on a failure")
    func status() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(3, in: directory)
        try await withDaemon(["--source", source], directory: directory) { daemon in
            _ = try await daemon.connect().call("load")
            let fresh = try await daemon.depotctl(["status"])
            #expect(fresh.status == 0, "\(fresh.standardError)")
            #expect(fresh.standardOutput.hasPrefix("success · 3 items · fresh · checked "), "\(fresh.standardOutput)")
            #expect(fresh.standardOutput.contains(" · watching the file · seq "), "\(fresh.standardOutput)")
            let json = try JSONParser.parse(try await daemon.depotctl(["status", "--json"]).standardOutput)
            #expect(json["fresh"] == true && json["items"] == .number(JSONNumber(3)))

            // The source gone: a load falls back to the cached list, marked stale; depotctl says why, and exits 4.
            let path = String(source.dropFirst("file:".count))
            try FileManager.default.removeItem(atPath: path)
            let load = try await daemon.depotctl(["load"])
            #expect(load.status == 4)
            #expect(load.standardError.hasPrefix("depotctl: serving the cached list, marked stale: "), "\(load.standardError)")
            #expect(load.standardError.contains(path), "the reason names the file that could not be read")
            #expect(load.standardOutput.contains("stale because "), "\(load.standardOutput)")
            let stale = try await daemon.depotctl(["status"])
            #expect(stale.status == 4)
            #expect(stale.standardOutput.hasPrefix("success · 3 items · stale since "), "\(stale.standardOutput)")
            #expect(stale.standardOutput.contains(path), "the reason names the file: \(stale.standardOutput)")
            #expect(try await daemon.depotctl(["status", "--quiet"]).standardOutput.isEmpty)

            // Without a cache to fall back on, the same load is a failure.
            _ = try await daemon.connect().call("wipe")
            _ = try? await daemon.connect().call("load")
            let failed = try await daemon.depotctl(["status"])
            #expect(failed.status == 4 && failed.standardOutput.hasPrefix("failure · "), "\(failed.standardOutput)")
            #expect(failed.standardOutput.contains(path), "the last error names the file: \(failed.standardOutput)")
            let state = try await daemon.depotctl(["state"])
            #expect(state.status == 4 && state.standardOutput.hasPrefix("failure · seq "), "\(state.standardOutput)")
        }
    }

    @Test("socket prints where depotctl would connect: --socket, else DEPOT_SOCKET, else depotd's default")
    func socketPath() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var environment = Daemon.environment(in: directory)
        let byDefault = try await CommandResult.run(Binaries.depotctl, ["socket"], environment: environment)
        // Nothing is at the test's own default, so where this machine runs a system depotd (or one left its socket),
        // depotctl names that instead; SocketLocatorTests covers both cases with a system socket of their own.
        let systemDaemonHere = Directories.exists(RuntimePaths.systemSocketPath)
        #expect(
            byDefault.standardOutput
                == (systemDaemonHere ? RuntimePaths.systemSocketPath : directory.file("run/depot/depotd.sock")) + "\n")
        environment["DEPOT_SOCKET"] = "/somewhere/d.sock"
        #expect(try await CommandResult.run(Binaries.depotctl, ["socket"], environment: environment).standardOutput == "/somewhere/d.sock\n")
        #expect(
            try await CommandResult.run(Binaries.depotctl, ["--socket", "/x.sock", "socket"], environment: environment).standardOutput == "/x.sock\n")
    }

    @Test("with --json, errors are JSON on stderr too: depotd's with its code and data, depotctl's own, and usage errors")
    func jsonErrors() async throws {
        try await Self.withDemo { daemon in
            let missing = try await daemon.depotctl(["--json", "get", "9999"])
            #expect(missing.status == 1)
            let answered = try JSONParser.parse(missing.standardError)
            #expect(answered["error"]?["code"] == .number(JSONNumber(-32003)), "\(missing.standardError)")
            #expect(answered["error"]?["message"]?.stringValue?.contains("9999") == true)
            #expect(missing.standardError.hasSuffix("}\n") && missing.standardError.filter { $0 == "\n" }.count == 1, "one line")

            let usage = try await daemon.depotctl(["get", "--json"])
            #expect(usage.status == 64)
            let refused = try JSONParser.parse(usage.standardError)
            #expect(refused["error"]?["code"] == nil, "not depotd's")
            #expect(refused["error"]?["message"]?.stringValue?.contains("<id>") == true, "\(usage.standardError)")

            let plain = try await daemon.depotctl(["get", "9999"])
            #expect(plain.standardError.hasPrefix("depotctl: "), "without --json, a line for people")
        }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let nobody = try await CommandResult.run(
            Binaries.depotctl, ["state", "--json", "--socket", directory.file("none.sock")], environment: Daemon.environment(in: directory))
        #expect(nobody.status == 3)
        #expect(try JSONParser.parse(nobody.standardError)["error"]?["message"]?.stringValue?.hasPrefix("no socket at ") == true)
    }

    @Test("with no daemon, every command exits 3 and says where it looked")
    func noDaemon() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("nobody-here.sock")
        for arguments in [["state"], ["watch"], ["remove", "1"]] {
            let result = try await CommandResult.run(
                Binaries.depotctl, arguments + ["--socket", missing], environment: Daemon.environment(in: directory))
            #expect(result.status == 3)
            #expect(
                result.standardError
                    == "depotctl: no socket at \(missing): depotd is not running there; start it with `depotd --socket \(missing)`, or give the right --socket\n"
            )
        }
    }
}
