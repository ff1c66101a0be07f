import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// Depot installed by scripts/install and run by a real systemd (PID 1 in a sandbox), driven as a user
/// would: systemctl, journalctl, depotctl. One sandbox per test, one test at a time.
@Suite(
    "Under a real systemd",
    .serialized,
    .enabled(if: SystemdSandbox.unavailableReason == nil || SystemdSandbox.mustRun, Comment(rawValue: SystemdSandbox.unavailableReason ?? ""))
)
struct SystemdIntegrationTests {
    @Test("the socket starts the service on the first connection, and that client is answered")
    func socketActivation() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            #expect(try await sandbox.show("depotd.service", ["ActiveState"])["ActiveState"] == "inactive", "nothing runs before a client comes")

            // The first client is answered at once, from whatever state depotd is in (its initial load may
            // still be running: reads never wait for the source); a load joins that initial load.
            let state = try await sandbox.depotctl(["state", "--json"])
            #expect(state.status == 0, "\(state.standardError)")
            #expect(try JSONParser.parse(state.standardOutput)["seq"]?.numberValue != nil)
            let loaded = try await sandbox.depotctl(["load", "--json"])
            #expect(try JSONParser.parse(loaded.standardOutput)["count"] == 151)
            let service = try await sandbox.show("depotd.service", ["ActiveState", "SubState", "Type"])
            #expect(service["ActiveState"] == "active")
            #expect(service["SubState"] == "running")
        }
    }

    @Test("scripts/install puts the shell completions and the manual pages where bash, zsh, fish and man find them")
    func completionsAndManual() async throws {
        let pages = RepositoryFiles.path(".build/man/depotctl.1")
        try #require(FileManager.default.fileExists(atPath: pages), "no manual pages in .build/man: run scripts/man first (scripts/test does)")
        try await withSandbox { sandbox in
            let bash = try await sandbox.shell("bash -c 'source /usr/local/share/bash-completion/completions/depotctl && complete -p depotctl'")
            #expect(bash.contains("depotctl"))
            _ = try await sandbox.shell(
                "test -s /usr/local/share/zsh/site-functions/_depotctl && test -s /usr/local/share/fish/vendor_completions.d/depotctl.fish")
            let found = try await sandbox.shell("MANPATH=/usr/local/share/man man -w depotctl depotd depotd.json")
            #expect(found.contains("man1/depotctl.1") && found.contains("man8/depotd.8") && found.contains("man5/depotd.json.5"), "\(found)")
            let page = try await sandbox.shell("MANPATH=/usr/local/share/man MANPAGER=cat MANWIDTH=100 man depotctl")
            #expect(page.contains("watch"))
        }
    }

    @Test("two repositories from the templates beside the default one: each its config, socket and state; depotctl -n picks one")
    func instances() async throws {
        try await withSandbox { sandbox in
            for (name, ids) in [("books", ["b1", "b2"]), ("films", ["f1", "f2", "f3"])] {
                let items = "[" + ids.map { #"{"id":"\#($0)"}"# }.joined(separator: ",") + "]"
                try await sandbox.write("/etc/depot/\(name)-items.json", Array(items.utf8))
                try await sandbox.write("/etc/depot/\(name).json", Array(#"{"source": "file:/etc/depot/\#(name)-items.json"}"#.utf8))
            }
            try await sandbox.shell("systemctl start depotd.socket depotd@books.socket depotd@films.socket")
            for (name, count) in [("books", 2), ("films", 3)] {
                let loaded = try await sandbox.run(["\(SystemdSandbox.staging)/bin/depotctl", "-n", name, "load", "--json"])
                #expect(loaded.status == 0, "\(name): \(loaded.standardError)")
                #expect(try JSONParser.parse(loaded.standardOutput)["count"] == .number(JSONNumber(count)), "\(name): \(loaded.standardOutput)")
                let active = try await sandbox.show("depotd@\(name).service", ["ActiveState"])
                #expect(active["ActiveState"] == "active")
            }
            // ...while the default repository runs too (its state directory and theirs side by side).
            let plain = try await sandbox.depotctl(["load", "--json"])
            #expect(plain.status == 0, "\(plain.standardError)")
            #expect(try JSONParser.parse(plain.standardOutput)["count"] == 151)
            #expect(try await sandbox.show("depotd@books.service", ["ActiveState"])["ActiveState"] == "active")
            let states = try await sandbox.shell("ls /var/lib/")
            #expect(states.contains("depot-books") && states.contains("depot-films"), "\(states)")
            #expect(try await sandbox.shell("ls /run/depot/").contains("books.sock"))
        }
    }

    @Test("under the unit's sandboxing the file source is watched: an administrator's edit reaches subscribers, no load asked")
    func watchedFile() async throws {
        try await withSandbox { sandbox in
            try await sandbox.write("/etc/depot/books-items.json", Array(#"[{"id":"b1"}]"#.utf8))
            try await sandbox.write("/etc/depot/books.json", Array(#"{"source": "file:/etc/depot/books-items.json"}"#.utf8))
            try await sandbox.shell("systemctl start depotd@books.socket")
            let depotctl = "\(SystemdSandbox.staging)/bin/depotctl -n books"
            let stats = try JSONParser.parse(try await sandbox.shell("\(depotctl) stats --json"))
            #expect(stats["source"]?["watching"] == true && stats["source"]?["watchedFile"] == "/etc/depot/books-items.json", "\(stats)")
            // As an administrator edits: sed -i writes a temporary file and renames it over the collection.
            try await sandbox.shell(#"sed -i 's/"b1"/"b1"},{"id":"b9"/' /etc/depot/books-items.json"#)
            // A watch prints the current state, then each change: the first that holds b9 ends it (grep closes the pipe).
            _ = try await sandbox.shell(#"timeout 60 sh -c '\#(depotctl) watch --json | grep -m1 -q "\"b9\""'"#)
            let status = try await sandbox.shell("\(depotctl) status")
            #expect(status.hasPrefix("success · 2 items · fresh · checked ") && status.contains("watching the file"), "\(status)")
        }
    }

    @Test("scripts/uninstall stops every depotd and removes what install put in place; --purge removes the state too")
    func uninstall() async throws {
        try await withSandbox { sandbox in
            try await sandbox.write("/etc/depot/books.json", Array(#"{"source": "file:/etc/depot/books-items.json"}"#.utf8))
            try await sandbox.write("/etc/depot/books-items.json", Array(#"[{"id":"b1"}]"#.utf8))
            try await sandbox.shell("systemctl start depotd.socket depotd@books.socket")
            #expect(try await sandbox.depotctl(["load"]).status == 0)
            #expect(try await sandbox.run(["\(SystemdSandbox.staging)/bin/depotctl", "-n", "books", "load"]).status == 0)

            try await sandbox.shell("\(SystemdSandbox.staging)/scripts/uninstall")
            for unit in ["depotd.service", "depotd.socket", "depotd@books.service", "depotd@books.socket"] {
                #expect(try await sandbox.show(unit, ["ActiveState"])["ActiveState"] == "inactive", "\(unit)")
            }
            let leftByUninstall = try await sandbox.existing([
                "/usr/local/bin/depotd", "/usr/local/bin/depotctl", "/etc/systemd/system/depotd.service", "/etc/systemd/system/depotd@.socket",
                "/etc/sysusers.d/depot.conf", "/etc/tmpfiles.d/depot.conf", "/usr/local/share/bash-completion/completions/depotctl",
            ])
            #expect(leftByUninstall.isEmpty, "left after uninstall: \(leftByUninstall)")
            _ = try await sandbox.shell(
                "test -f /var/lib/private/depot/items.json && test -d /var/lib/private/depot-books && test -f /etc/depot/books.json")

            try await sandbox.shell("\(SystemdSandbox.staging)/scripts/uninstall --purge")
            let leftByPurge = try await sandbox.existing([
                "/var/lib/private/depot", "/var/lib/depot", "/var/lib/private/depot-books", "/var/lib/depot-books", "/etc/depot",
            ])
            #expect(leftByPurge.isEmpty, "left after --purge: \(leftByPurge)")
            #expect(try await sandbox.run(["getent", "group", "depot"]).status != 0)
        }
    }

    @Test("StatusText shows the state, the items and the subscribers, and follows them")
    func statusText() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            _ = try await sandbox.depotctl(["load"])
            try await sandbox.shell("systemd-run --unit=watcher-1 \(SystemdSandbox.staging)/bin/depotctl watch --socket \(SystemdSandbox.socketPath)")
            try await sandbox.shell("systemd-run --unit=watcher-2 \(SystemdSandbox.staging)/bin/depotctl watch --socket \(SystemdSandbox.socketPath)")
            try await sandbox.waitUntil("StatusText to count two subscribers") {
                try await sandbox.show("depotd.service", ["StatusText"])["StatusText"]?.hasPrefix("success · 151 items · 2 subscribers · seq ")
                    == true
            }
            _ = try await sandbox.depotctl(["remove", "25"])
            try await sandbox.waitUntil("StatusText to show the removal") {
                try await sandbox.show("depotd.service", ["StatusText"])["StatusText"]?.hasPrefix("success · 150 items · 2 subscribers") == true
            }
            try await sandbox.shell("systemctl stop watcher-1")
            try await sandbox.waitUntil("StatusText to count one subscriber") {
                try await sandbox.show("depotd.service", ["StatusText"])["StatusText"]?.contains("· 1 subscriber ·") == true
            }
        }
    }

    @Test("systemctl reload applies a changed config; a broken one leaves depotd running and says why")
    func reload() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            _ = try await sandbox.depotctl(["load"])
            try await sandbox.write("/var/lib/depot/colours.json", Array(#"[{"id": "red"}, {"id": "green"}]"#.utf8))
            try await sandbox.shell("chmod 0644 /var/lib/private/depot/colours.json")
            try await sandbox.write("/etc/depot/depotd.json", Array(#"{"source": "file:/var/lib/depot/colours.json", "logLevel": "debug"}"#.utf8))
            try await sandbox.shell("systemctl reload depotd")
            try await sandbox.waitUntil("the new source to be served") {
                let state = try await sandbox.depotctl(["state", "--json"])
                return (try? JSONParser.parse(state.standardOutput))?["items"]?.arrayValue?.count == 2
            }

            try await sandbox.write("/etc/depot/depotd.json", Array(#"{"source": 42}"#.utf8))
            try await sandbox.shell("systemctl reload depotd")
            try await sandbox.waitUntil("StatusText to report the failed reload") {
                try await sandbox.show("depotd.service", ["StatusText"])["StatusText"]?.hasPrefix(
                    "reload failed, previous configuration kept: config file /etc/depot/depotd.json: \"source\" must be a string") == true
            }
            #expect(try await sandbox.show("depotd.service", ["ActiveState"])["ActiveState"] == "active")
            let state = try await sandbox.depotctl(["state", "--json"])
            #expect((try? JSONParser.parse(state.standardOutput))?["items"]?.arrayValue?.count == 2, "still serving the last good configuration")
            let journal = try await sandbox.shell("journalctl -u depotd -o cat --no-pager")
            #expect(journal.contains("reload failed; still running with the previous configuration"))
        }
    }

    @Test("systemctl stop exits cleanly, and subscribers see their connection close")
    func stop() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            _ = try await sandbox.depotctl(["state"])
            try await sandbox.shell("systemd-run --unit=watcher \(SystemdSandbox.staging)/bin/depotctl watch --socket \(SystemdSandbox.socketPath)")
            try await sandbox.waitUntil("the watcher to be subscribed") {
                try await sandbox.show("depotd.service", ["StatusText"])["StatusText"]?.contains("· 1 subscriber ·") == true
            }
            try await sandbox.shell("systemctl stop depotd.service")
            let service = try await sandbox.show("depotd.service", ["ActiveState", "Result", "ExecMainCode", "ExecMainStatus"])
            #expect(service["ActiveState"] == "inactive")
            #expect(service["Result"] == "success", "no kill was needed")
            #expect(service["ExecMainStatus"] == "0")
            try await sandbox.waitUntil("the watcher to end") {
                try await sandbox.show("watcher.service", ["ActiveState"])["ActiveState"] != "active"
            }
            let watcherLog = try await sandbox.shell("journalctl -u watcher -o cat --no-pager")
            #expect(watcherLog.contains("depotctl: depotd closed the connection"))
            // The socket stays, so the next client starts depotd again.
            #expect(try await sandbox.depotctl(["state"]).status == 0)
        }
    }

    @Test("a hung (SIGSTOPped) depotd is killed by the watchdog and restarted; clients work again")
    func watchdog() async throws {
        try await withSandbox { sandbox in
            try await sandbox.write("/etc/systemd/system/depotd.service.d/watchdog.conf", Array("[Service]\nWatchdogSec=2s\nRestartSec=100ms\n".utf8))
            try await sandbox.shell("systemctl daemon-reload && systemctl start depotd.socket")
            _ = try await sandbox.depotctl(["state"])
            let before = try await sandbox.show("depotd.service", ["MainPID", "NRestarts"])
            let pid = try #require(before["MainPID"])
            try await sandbox.shell("kill -STOP \(pid)")
            try await sandbox.waitUntil("systemd to restart depotd") {
                let now = try await sandbox.show("depotd.service", ["MainPID", "NRestarts", "ActiveState"])
                return now["NRestarts"] == "1" && now["ActiveState"] == "active" && now["MainPID"] != pid
            }
            let journal = try await sandbox.shell("journalctl -u depotd -o cat --no-pager")
            #expect(journal.contains("Watchdog timeout"))
            let state = try await sandbox.depotctl(["state", "--json"])
            #expect(state.status == 0, "clients work again: \(state.standardError)")
        }
    }

    @Test("journalctl shows depotd's messages with their priorities and fields")
    func journal() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            _ = try await sandbox.depotctl(["load"])
            _ = try await sandbox.depotctl(["remove", "9999"])
            try await sandbox.waitUntil("the removal's warning to reach the journal") {
                try await sandbox.shell("journalctl -u depotd -p warning -o cat --no-pager").contains(#"remove "9999" failed"#)
            }
            let entries = try await sandbox.shell("journalctl -u depotd -o json --no-pager")
                .split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
            func entry(containing text: String) -> JSONValue? {
                entries.first { $0["MESSAGE"]?.stringValue?.contains(text) == true }
            }
            #expect(entry(containing: "listening on /run/depot/depotd.sock")?["PRIORITY"] == "6")
            #expect(entry(containing: #"remove "9999" failed"#)?["PRIORITY"] == "4")
            let request = entry(containing: "remove 9999 requested")
            #expect(request?["PRIORITY"] == "6")
            #expect(request?["DEPOT_METHOD"] == "remove")
            #expect(request?["DEPOT_PEER_UID"] == "0", "the caller's uid, from the socket")
            #expect(request?["DEPOT_PEER_PID"]?.stringValue.flatMap(Int.init) != nil)
            #expect(request?["SYSLOG_IDENTIFIER"] == "depotd")
        }
    }

    @Test("only root and members of group depot may connect")
    func socketPermissions() async throws {
        try await withSandbox { sandbox in
            try await sandbox.shell("systemctl start depotd.socket")
            let outsider = try await sandbox.depotctl(["state"], as: ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            #expect(outsider.status == 3)
            #expect(outsider.standardError.contains("permission denied on /run/depot/depotd.sock"))
            try await sandbox.shell("useradd --no-create-home --groups depot member")
            let member = try await sandbox.depotctl(["state"], as: ["setpriv", "--reuid=member", "--regid=member", "--init-groups"])
            #expect(member.status == 0, "\(member.standardError)")
            // Without --socket, a user's depotctl looks where a depotd of its own would listen, finds nothing
            // there, and falls back to the system daemon's socket.
            let found = try await sandbox.depotctl(
                ["state"], as: ["setpriv", "--reuid=member", "--regid=member", "--init-groups", "env", "-u", "XDG_RUNTIME_DIR"], findingSocket: true)
            #expect(found.status == 0, "\(found.standardError)")
        }
    }

    @Test("scripts/install with no --man makes the pages the units' Documentation= names: the units verify cleanly")
    func installMakesManualPages() async throws {
        let swift = try #require(RepositoryFiles.executable(named: "swift"), "swift is not on PATH")
        try await withSandbox(installed: false) { sandbox in
            // As a user would from a clone: the binaries just built, no pages made beforehand (those scripts/test made
            // are removed in the sandbox's overlay only: the host keeps them), swift on PATH.
            try await sandbox.run(["rm", "-rf", RepositoryFiles.path(".build/man")])
            let path = "\((swift as NSString).deletingLastPathComponent):/usr/sbin:/usr/bin:/sbin:/bin"
            let installed = try await sandbox.run([
                "env", "PATH=\(path)", RepositoryFiles.path("scripts/install"), "--binaries", Binaries.folder,
            ])
            #expect(installed.status == 0, "\(installed.standardError)")
            let found = try await sandbox.shell("MANPATH=/usr/local/share/man man -w depotctl depotd depotd.json")
            #expect(found.contains("man1/depotctl.1") && found.contains("man8/depotd.8") && found.contains("man5/depotd.json.5"), "\(found)")
            let verify = try await sandbox.run([
                "systemd-analyze", "verify", "/etc/systemd/system/depotd.service", "/etc/systemd/system/depotd.socket",
            ])
            #expect(verify.status == 0 && verify.standardError.isEmpty, "verify printed: \(verify.standardError)")
        }
    }

    @Test("the units verify cleanly, and the service's exposure is at most 1.5")
    func unitsVerifyAndSecurity() async throws {
        try await withSandbox { sandbox in
            let verify = try await sandbox.run([
                "systemd-analyze", "verify", "/etc/systemd/system/depotd.service", "/etc/systemd/system/depotd.socket",
            ])
            #expect(verify.status == 0)
            #expect(verify.standardOutput.isEmpty && verify.standardError.isEmpty, "verify printed: \(verify.standardError)\(verify.standardOutput)")
            let security = try await sandbox.shell("systemd-analyze security --no-pager depotd.service")
            let line = try #require(security.split(separator: "\n").first { $0.contains("Overall exposure level for depotd.service") })
            // "→ Overall exposure level for depotd.service: 1.4 OK 🙂" (":-)" without a UTF-8 locale).
            let afterName = line.split(separator: "depotd.service:", maxSplits: 1).last ?? ""
            let number = afterName.drop(while: { !$0.isNumber }).prefix(while: { $0.isNumber || $0 == "." })
            let score = try #require(Double(number), "\(line)")
            #expect(score <= 1.5, "\(line)")
        }
    }
}

@Suite(
    "The systemd sandbox itself",
    .enabled(if: SystemdSandbox.unavailableReason == nil || SystemdSandbox.mustRun, Comment(rawValue: SystemdSandbox.unavailableReason ?? ""))
)
struct SystemdSandboxTests {
    @Test("two sandboxes booted at once are two: each its own systemd, its own files (suites boot theirs in parallel)")
    func bootedAtOnce() async throws {
        async let first = Self.booted()
        async let second = Self.booted()
        let results = await [first, second]
        let sandboxes = results.compactMap { try? $0.get() }
        var failure: (any Error)?
        do {
            for result in results { _ = try result.get() }
            #expect(sandboxes[0].pid != sandboxes[1].pid)
            try await sandboxes[0].write("/etc/depot-sandbox-mark", Array("first".utf8))
            #expect(try await sandboxes[1].existing(["/etc/depot-sandbox-mark"]).isEmpty, "the second sandbox sees the first one's file")
            #expect(try await sandboxes[0].shell("cat /etc/depot-sandbox-mark") == "first")
        } catch {
            failure = error
        }
        for sandbox in sandboxes { await sandbox.stop() }
        if let failure { throw failure }
    }

    /// A sandbox, or why it did not boot, so that the other one is stopped either way.
    static func booted() async -> Result<SystemdSandbox, any Error> {
        do {
            return .success(try await SystemdSandbox.boot())
        } catch {
            return .failure(error)
        }
    }
}
