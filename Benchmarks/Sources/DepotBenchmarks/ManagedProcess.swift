public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A server the benchmark started (depotd, Redis, the floor). Every one is registered, so that an error or a
/// Ctrl-C stops all of them: a run never leaves a server behind.
public final class ManagedProcess: Sendable {
    public let name: String
    public let pid: pid_t
    /// When the process was about to be spawned: the start of the start-up measurement.
    public let launchedAt: UInt64
    private let exited = Atomic<Bool>(false)

    private static let running = Mutex<[ObjectIdentifier: ManagedProcess]>([:])

    private init(name: String, pid: pid_t, launchedAt: UInt64) {
        self.name = name
        self.pid = pid
        self.launchedAt = launchedAt
    }

    /// Spawns `executable` with stdin from /dev/null, stdout to our stderr, and default signal handling and an
    /// empty signal mask: this process may be running on a thread that blocks signals, and a child would
    /// inherit that and never see SIGTERM.
    /// Starts `executable` with this process's environment plus `environment`.
    public static func launch(_ name: String, executable: String, arguments: [String], environment: [String: String] = [:]) throws -> ManagedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let launchedAt = MonotonicClock.now()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw BenchError("cannot start \(name) (\(executable)): \(String(cString: strerror(result)))")
        }
        let managed = ManagedProcess(name: name, pid: pid, launchedAt: launchedAt)
        running.withLock { $0[ObjectIdentifier(managed)] = managed }
        return managed
    }

    /// False once the process has exited (and been reaped).
    public var isRunning: Bool {
        if exited.load(ordering: .relaxed) { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exited.store(true, ordering: .relaxed)
            return false
        }
        return true
    }

    /// The resident set size, VmRSS in /proc/PID/status.
    public func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            throw BenchError("no VmRSS in /proc/\(pid)/status: is /proc mounted?")
        }
        return value
    }

    /// Waits until a connection to `socket` succeeds; returns when it did.
    public func waitUntilAccepting(_ socket: String, timeout: Double = 60) throws -> UInt64 {
        let deadline = MonotonicClock.now() + UInt64(timeout * 1e9)
        while true {
            if let fd = try? UnixSocket.connect(to: socket) {
                let now = MonotonicClock.now()
                close(fd)
                return now
            }
            guard isRunning else {
                throw BenchError("\(name) exited before it accepted connections on \(socket); see its messages above (Redis: \(socket).log)")
            }
            guard MonotonicClock.now() < deadline else {
                throw BenchError("\(name) did not accept connections on \(socket) within \(Int(timeout)) s")
            }
            MonotonicClock.sleep(seconds: 0.0005)
        }
    }

    /// SIGTERM, then SIGKILL if it has not exited within 10 seconds.
    public func stop() {
        Self.running.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
        guard isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = MonotonicClock.now() + 10_000_000_000
        while isRunning && MonotonicClock.now() < deadline {
            MonotonicClock.sleep(seconds: 0.002)
        }
        if isRunning {
            FileHandle.standardError.write(Data("depot-bench: \(name) did not stop within 10 s of SIGTERM; killing it\n".utf8))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exited.store(true, ordering: .relaxed)
        }
    }

    /// Stops every server still running.
    public static func stopAll() {
        let all = running.withLock { Array($0.values) }
        for process in all { process.stop() }
    }

    /// On SIGINT or SIGTERM, stops every server, runs `cleanUp`, and exits.
    public static func stopAllOnSignal(cleanUp: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("depot-bench: interrupted; stopping the servers\n".utf8))
                stopAll()
                cleanUp()
                exit(128 + signalNumber)
            }
            source.resume()
            // Kept for the life of the process: a signal source that is released stops delivering.
            signalSources.append(source)
        }
    }

    /// Written only by `stopAllOnSignal`, which the run calls once, on the main thread, before starting anything.
    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []
}
