import DepotTestSupport
import Foundation
import Testing

/// A real systemd, booted as PID 1 in throwaway namespaces by scripts/systemd-sandbox, with Depot installed
/// inside it by scripts/install. Everything a test does to it stays inside: the sandbox's file system is an
/// overlay that disappears with it.
struct SystemdSandbox: Sendable {
    /// Where the project's files are copied inside the sandbox (the build folder may be under /tmp, which
    /// the sandbox replaces with a fresh one, so nothing is taken from the host's paths).
    static let staging = "/opt/depot-test"
    static let socketPath = "/run/depot/depotd.sock"
    static let script = RepositoryFiles.path("scripts/systemd-sandbox")

    let pid: String

    /// Why the sandbox cannot run here (not root, no unshare, no systemd, or a developer set
    /// DEPOT_SKIP_SYSTEMD_TESTS=1), or nil when it can.
    static var unavailableReason: String? {
        if ProcessInfo.processInfo.environment["DEPOT_SKIP_SYSTEMD_TESTS"] == "1", !mustRun {
            return "skipped: DEPOT_SKIP_SYSTEMD_TESTS=1 is set (CI=true runs them anyway)"
        }
        if getuid() != 0 { return "needs root (unshare and mounts for the sandbox)" }
        if RepositoryFiles.executable(named: "unshare") == nil { return "needs unshare (util-linux)" }
        if !FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd") { return "needs systemd installed (/lib/systemd/systemd)" }
        return nil
    }

    /// Under CI=true a sandbox test must run: a skip there would hide a missing install step (and the switch to
    /// skip them is ignored).
    static var mustRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// Boots a sandbox and installs Depot in it (binaries from this build, units, sysusers file, config).
    static func bootWithDepot() async throws -> SystemdSandbox {
        let sandbox = try await boot()
        do {
            try await sandbox.install()
        } catch {
            await sandbox.stop()
            throw error
        }
        return sandbox
    }

    /// Boots a sandbox with nothing of Depot's in it: what an earlier scripts/install may have left on the host is
    /// removed inside (the host keeps it), so it starts as a machine that never had Depot.
    static func boot() async throws -> SystemdSandbox {
        if let reason = unavailableReason {
            throw SandboxUnavailable(description: "the systemd sandbox cannot run here: \(reason)")
        }
        // Wider than the script's own 120 s deadline, so that a boot that hangs fails with what the script says of it.
        let started = try await CommandResult.run(script, ["start"], environment: hostEnvironment, limit: .seconds(180))
        guard started.status == 0, let pid = started.standardOutput.split(separator: "\n").last.map(String.init), !pid.isEmpty else {
            throw SandboxUnavailable(description: "scripts/systemd-sandbox start failed (\(started.status)): \(started.standardError)")
        }
        let sandbox = SystemdSandbox(pid: pid)
        do {
            // A state directory some earlier run left on the host (/var/lib/depot) would also make systemd migrate it
            // for DynamicUser=, which fails across the overlay.
            try await sandbox.shell(
                "rm -rf /var/lib/depot /var/lib/private/depot /var/lib/depot-* /var/lib/private/depot-* /etc/depot /etc/systemd/system/depotd* "
                    + "/etc/systemd/system/sockets.target.wants/depotd* /etc/sysusers.d/depot.conf /etc/tmpfiles.d/depot.conf "
                    + "/usr/local/bin/depotd /usr/local/bin/depotctl && (! getent group depot >/dev/null || groupdel depot) "
                    + "&& systemctl daemon-reload")
        } catch {
            await sandbox.stop()
            throw error
        }
        return sandbox
    }

    static var hostEnvironment: [String: String] {
        ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
    }

    /// Runs a command inside the sandbox, as root.
    @discardableResult
    func run(_ arguments: [String], input: [UInt8]? = nil) async throws -> CommandResult {
        let child = try ChildProcess(Self.script, ["exec", pid] + arguments, environment: Self.hostEnvironment, input: input)
        let status = try await child.waitForExit(.seconds(120))
        return CommandResult(status: status, standardOutput: child.standardOutput.value, standardError: child.standardError.value)
    }

    /// Runs a shell command inside the sandbox and fails the test when it does not succeed.
    @discardableResult
    func shell(_ command: String, input: [UInt8]? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await run(["/bin/sh", "-c", command], input: input)
        guard result.status == 0 else {
            throw SandboxCommandFailed(description: "`\(command)` exited \(result.status): \(result.standardError)\(result.standardOutput)")
        }
        return result.standardOutput
    }

    /// Writes `bytes` to `path` inside the sandbox.
    func write(_ path: String, _ bytes: [UInt8], mode: String = "0644") async throws {
        try await shell("mkdir -p \"$(dirname '\(path)')\" && cat > '\(path)' && chmod \(mode) '\(path)'", input: bytes)
    }

    /// depotctl inside the sandbox, as root unless `as` names a setpriv prefix; with `--socket` unless
    /// `findingSocket` asks it to find the socket itself.
    func depotctl(_ arguments: [String], as user: [String] = [], findingSocket: Bool = false) async throws -> CommandResult {
        try await run(user + ["\(Self.staging)/bin/depotctl"] + arguments + (findingSocket ? [] : ["--socket", Self.socketPath]))
    }

    /// Those of `paths` that exist inside the sandbox (as `test -e` sees them), for checking what an uninstall left.
    func existing(_ paths: [String]) async throws -> [String] {
        var found: [String] = []
        for path in paths where try await run(["test", "-e", path]).status == 0 {
            found.append(path)
        }
        return found
    }

    /// Properties of a unit, from `systemctl show`.
    func show(_ unit: String, _ properties: [String]) async throws -> [String: String] {
        let output = try await shell("systemctl show \(unit) " + properties.map { "-p \($0)" }.joined(separator: " "))
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// Waits until `condition` holds, looking again every tenth of a second: systemd's unit properties
    /// change without an event a test can subscribe to from outside, so they are read until they do.
    func waitUntil(_ what: String, _ limit: Duration = .seconds(60), _ condition: @escaping @Sendable () async throws -> Bool) async throws {
        try await withTimeout(limit, what) {
            while try await !condition() {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Kills the sandbox and everything in it.
    func stop() async {
        _ = try? await CommandResult.run(Self.script, ["stop", pid], environment: Self.hostEnvironment)
    }

    /// Copies the binaries, scripts/install and systemd/ into the sandbox and runs the install script there.
    private func install() async throws {
        for name in ["depotd", "depotctl"] {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(Binaries.folder)/\(name)")))
            try await write("\(Self.staging)/bin/\(name)", bytes, mode: "0755")
        }
        for file in [
            "scripts/install", "scripts/uninstall", "systemd/depotd.service", "systemd/depotd.socket", "systemd/depotd@.service",
            "systemd/depotd@.socket",
            "systemd/depot.sysusers", "systemd/depot.tmpfiles", "systemd/depotd.json",
        ] {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.path(file))))
            try await write("\(Self.staging)/\(file)", bytes, mode: file.hasPrefix("scripts/") ? "0755" : "0644")
        }
        // The manual pages scripts/man made (scripts/test makes them before the suite), installed as a user would.
        for page in ["depotctl.1", "depotd.8", "depotd.json.5"] {
            let path = RepositoryFiles.path(".build/man/\(page)")
            guard FileManager.default.fileExists(atPath: path) else { continue }
            try await write("\(Self.staging)/man/\(page)", try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), mode: "0644")
        }
        try await shell("\(Self.staging)/scripts/install --binaries \(Self.staging)/bin --man \(Self.staging)/man")
    }
}

struct SandboxUnavailable: Error, CustomStringConvertible {
    let description: String
}

struct SandboxCommandFailed: Error, CustomStringConvertible {
    let description: String
}

/// Runs `body` with a freshly booted sandbox, with Depot installed by scripts/install unless `installed` is false,
/// and always stops the sandbox after.
func withSandbox(installed: Bool = true, _ body: @escaping @Sendable (SystemdSandbox) async throws -> Void) async throws {
    let sandbox = try await installed ? SystemdSandbox.bootWithDepot() : SystemdSandbox.boot()
    do {
        try await withTimeout(.seconds(300), "the test's work in the systemd sandbox") { try await body(sandbox) }
        await sandbox.stop()
    } catch {
        await sandbox.stop()
        throw error
    }
}
