import DepotJSON
import DepotTestSupport
import DepotWire
import Foundation
import Testing

/// The Debian package scripts/package builds, installed with apt into a machine that never had Depot (a systemd
/// sandbox), used, upgraded, removed and purged as an administrator would; and held to lintian.
@Suite(
    "The Debian package",
    .serialized,
    .enabled(if: DebianPackage.unavailableReason == nil || SystemdSandbox.mustRun, Comment(rawValue: DebianPackage.unavailableReason ?? ""))
)
struct DebianPackageTests {
    @Test("lintian finds nothing but the overridden embedded zlib, pedantic tags included, in depot and python3-depot")
    func lintian() async throws {
        let path = try DebianPackage.path()
        let python = try DebianPackage.pythonPath()
        let lintian = try #require(
            RepositoryFiles.executable(named: "lintian"), "lintian is not installed (scripts/install-dependencies installs it)")
        // Its own temporary directory and a fixed locale: what it unpacks is nobody else's to clean, and its checks
        // (man's warnings among them) read the same on every machine.
        let scratch = TemporaryDirectory()
        defer { scratch.remove() }
        let result = try await CommandResult.run(
            lintian, ["--pedantic", "--fail-on", "error,warning,info,pedantic", path, python],
            environment: SystemdSandbox.hostEnvironment.merging(["TMPDIR": scratch.path, "LC_ALL": "C.UTF-8"]) { $1 },
            // lintian reads both binaries whole: 20 s on an idle machine, past a minute beside the rest of the suite.
            limit: .seconds(900))
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        let tags = result.standardOutput.split(separator: "\n").filter {
            $0.hasPrefix("E:") || $0.hasPrefix("W:") || $0.hasPrefix("I:") || $0.hasPrefix("P:")
        }
        // An override that no longer matches anything would be tagged unused-override (info), and fail too.
        #expect(tags.isEmpty, "\(tags)")
    }

    @Test("apt install enables the socket, which starts depotd on the first call; remove keeps the state, purge deletes it")
    func installRemovePurge() async throws {
        let path = try DebianPackage.path()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let name = (path as NSString).lastPathComponent
        try await withSandbox(installed: false) { sandbox in
            try await sandbox.write("\(SystemdSandbox.staging)/\(name)", bytes)
            // The host may be a container image whose policy-rc.d forbids starting services (Docker's does); a machine
            // that boots systemd has none.
            try await sandbox.shell("rm -f /usr/sbin/policy-rc.d")
            try await sandbox.shell("cd \(SystemdSandbox.staging) && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./\(name)")

            // Installed: the group, /run/depot, the socket enabled and listening; depotd itself not yet started.
            _ = try await sandbox.shell("getent group depot")
            #expect(try await sandbox.shell("stat -c %a:%U /run/depot") == "755:root\n")
            #expect(try await sandbox.shell("systemctl is-enabled depotd.socket") == "enabled\n")
            let status = try await sandbox.shell("systemctl status --no-pager depotd.socket")
            #expect(status.contains("Active: active (listening)"), "\(status)")
            #expect(status.contains("/run/depot/depotd.sock"), "\(status)")
            #expect(try await sandbox.show("depotd.service", ["ActiveState"])["ActiveState"] == "inactive")
            #expect(try await sandbox.shell("dpkg-query -W -f '${Conffiles}' depot").contains("/etc/depot/depotd.json"))
            #expect(try await sandbox.shell("/usr/bin/depotctl --version") == DepotVersion.current + "\n")

            // A call through socket activation, with depotctl finding the socket itself (as root: /run/depot).
            let loaded = try await sandbox.run(["/usr/bin/depotctl", "load", "--json"])
            #expect(loaded.status == 0, "\(loaded.standardError)")
            #expect(try JSONParser.parse(loaded.standardOutput)["count"] == 151)
            #expect(try await sandbox.show("depotd.service", ["ActiveState"])["ActiveState"] == "active")
            let removed = try await sandbox.run(["/usr/bin/depotctl", "remove", "25"])
            #expect(removed.status == 0, "\(removed.standardError)")

            // Manual pages and completions where man and the shells look.
            let pages = try await sandbox.shell("man -w depotctl depotd depotd.json")
            #expect(pages == "/usr/share/man/man1/depotctl.1.gz\n/usr/share/man/man8/depotd.8.gz\n/usr/share/man/man5/depotd.json.5.gz\n")
            #expect(
                try await sandbox.shell("bash -c 'source /usr/share/bash-completion/completions/depotctl && complete -p depotctl'").contains(
                    "depotctl"))

            // An upgrade (the same package again) restarts a running depotd on the new binary; its clients go on.
            let before = try await sandbox.show("depotd.service", ["MainPID"])["MainPID"]
            try await sandbox.shell("DEBIAN_FRONTEND=noninteractive dpkg -i \(SystemdSandbox.staging)/\(name)")
            let after = try await sandbox.show("depotd.service", ["MainPID", "ActiveState"])
            #expect(after["ActiveState"] == "active" && after["MainPID"] != before, "\(String(describing: before)) → \(after)")
            let reloaded = try await sandbox.run(["/usr/bin/depotctl", "load", "--json"])
            #expect(try JSONParser.parse(reloaded.standardOutput)["count"] == 150, "the removal survived the restart")

            // A second repository from the template, to see removal stop it too.
            try await sandbox.write("/srv/books.json", Array(#"[{"id":"b1"}]"#.utf8))
            try await sandbox.write("/etc/depot/books.json", Array(#"{"source": "file:/srv/books.json"}"#.utf8))
            try await sandbox.shell("systemctl start depotd@books.socket")
            let books = try await sandbox.run(["/usr/bin/depotctl", "-n", "books", "load"])
            let journal = try await sandbox.run(["journalctl", "--no-pager", "-u", "depotd@books.service"]).standardOutput
            #expect(books.status == 0, "\(books.standardError) \(journal)")

            let items = try await sandbox.shell("sha256sum /var/lib/private/depot/items.json")

            // apt remove: everything stopped and gone but the state and the config.
            try await sandbox.shell("DEBIAN_FRONTEND=noninteractive apt-get remove -y -q depot")
            for unit in ["depotd.service", "depotd.socket", "depotd@books.service", "depotd@books.socket"] {
                let properties = try await sandbox.show(unit, ["ActiveState", "LoadState"])
                #expect(properties["ActiveState"] == "inactive", "\(unit): \(properties)")
            }
            #expect(try await sandbox.show("depotd.socket", ["LoadState"])["LoadState"] == "not-found")
            #expect(try await sandbox.existing(["/usr/bin/depotd", "/run/depot/depotd.sock"]).isEmpty)
            #expect(try await sandbox.shell("sha256sum /var/lib/private/depot/items.json") == items, "remove keeps the collection")
            _ = try await sandbox.shell("test -d /var/lib/private/depot-books && test -f /etc/depot/depotd.json")
            #expect(try await sandbox.shell("dpkg-query -W -f '${Status}' depot") == "deinstall ok config-files")

            // apt purge: the state, the conffile and deb-systemd-helper's records go; the administrator's books.json stays.
            try await sandbox.shell("DEBIAN_FRONTEND=noninteractive apt-get purge -y -q depot")
            let leftByPurge = try await sandbox.existing([
                "/var/lib/private/depot", "/var/lib/depot", "/var/lib/private/depot-books", "/var/lib/depot-books", "/etc/depot/depotd.json",
                "/etc/systemd/system/sockets.target.wants/depotd.socket",
                "/var/lib/systemd/deb-systemd-helper-enabled/depotd.socket.dsh-also",
            ])
            #expect(leftByPurge.isEmpty, "left after purge: \(leftByPurge)")
            _ = try await sandbox.shell("test -f /etc/depot/books.json")
            #expect(try await sandbox.run(["dpkg-query", "-W", "depot"]).status != 0, "dpkg forgets the package")
        }
    }
}

extension DebianPackageTests {
    @Test(
        "python3-depot installed beside depot: Debian's python3 imports it, and the README's status-bar script reads the packaged daemon"
    )
    func pythonPackage() async throws {
        let packages = [try DebianPackage.path(), try DebianPackage.pythonPath()]
        let script = try RepositoryFiles.text("examples/depot_statusbar.py")
        try await withSandbox(installed: false) { sandbox in
            for path in packages {
                try await sandbox.write(
                    "\(SystemdSandbox.staging)/\((path as NSString).lastPathComponent)", try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
            }
            try await sandbox.write("\(SystemdSandbox.staging)/depot_statusbar.py", Array(script.utf8))
            try await sandbox.shell("rm -f /usr/sbin/policy-rc.d")
            let names = packages.map { "./" + ($0 as NSString).lastPathComponent }.joined(separator: " ")
            try await sandbox.shell("cd \(SystemdSandbox.staging) && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \(names)")

            #expect(
                try await sandbox.shell("/usr/bin/python3 -c 'import depot; print(depot.__file__, depot.__version__)'")
                    == "/usr/lib/python3/dist-packages/depot/__init__.py \(DepotVersion.current)\n")
            #expect(try await sandbox.shell("test -f /usr/lib/python3/dist-packages/depot/py.typed && echo typed") == "typed\n")
            // The script as a user runs it: it finds /run/depot/depotd.sock itself (root), and socket activation starts
            // depotd (its first states are idle, then loading). It runs until killed, so a small driver reads its lines up to
            // the first after those and stops it.
            let driver = [
                "import subprocess, sys",
                "script = '\(SystemdSandbox.staging)/depot_statusbar.py'",
                "bar = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)",
                "for line in bar.stdout:",
                "    if not line.startswith(('idle', 'loading')):",
                "        break",
                "print(line, end='')",
                "bar.kill()",
            ].joined(separator: "\n")
            try await sandbox.write("\(SystemdSandbox.staging)/driver.py", Array(driver.utf8))
            let line = try await sandbox.shell("/usr/bin/python3 \(SystemdSandbox.staging)/driver.py")
            #expect(line.hasPrefix("success · 151 items · fetched "), "\(line)")

            // Byte-compiled on install; removal takes everything, the compiled files included.
            _ = try await sandbox.shell("test -d /usr/lib/python3/dist-packages/depot/__pycache__")
            try await sandbox.shell("DEBIAN_FRONTEND=noninteractive apt-get purge -y -q python3-depot")
            #expect(try await sandbox.existing(["/usr/lib/python3/dist-packages/depot"]).isEmpty)
        }
    }
}

/// Where the packages under test are: $DEPOT_PACKAGE (python3-depot beside it), else what scripts/package made in
/// .build/package.
enum DebianPackage {
    /// python3-depot, beside depot's package.
    static func pythonPath() throws -> String {
        let path = ((candidate as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("python3-depot_\(DepotVersion.current)_all.deb")
        try #require(FileManager.default.fileExists(atPath: path), "no python3-depot at \(path): scripts/package makes it beside depot's")
        return path
    }

    static func path() throws -> String {
        let path = candidate
        try #require(FileManager.default.fileExists(atPath: path), "\(unavailableReason ?? path)")
        return path
    }

    static var candidate: String {
        if let path = ProcessInfo.processInfo.environment["DEPOT_PACKAGE"], !path.isEmpty { return path }
        return RepositoryFiles.path(".build/package/depot_\(DepotVersion.current)_\(architecture).deb")
    }

    /// This machine's architecture as Debian names it (dpkg --print-architecture).
    static var architecture: String {
        #if arch(arm64)
        "arm64"
        #else
        "amd64"
        #endif
    }

    /// Why the package tests cannot run here, or nil when they can.
    static var unavailableReason: String? {
        if let reason = SystemdSandbox.unavailableReason { return reason }
        if !FileManager.default.fileExists(atPath: candidate) {
            return "no package at \(candidate): make it with scripts/package (CI does), or name one in DEPOT_PACKAGE"
        }
        return nil
    }
}

@Suite("scripts/package: what it refuses")
struct PackageScriptTests {
    @Test("binaries that load a toolchain's Swift runtime are refused, each library named, and no package is made")
    func refusesToolchainRuntime() async throws {
        let output = TemporaryDirectory()
        defer { output.remove() }
        // This build's binaries are debug ones, which load the Swift runtime from the toolchain.
        let result = try await CommandResult.run(
            RepositoryFiles.path("scripts/package"), ["--binaries", Binaries.folder, "--output", output.path],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("come from no Debian package"), "\(result.standardError)")
        #expect(result.standardError.contains("depotd loads ") && result.standardError.contains("libswiftCore.so"), "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty)
    }
}
