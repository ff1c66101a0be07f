import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Threads of its own for blocking system calls (a file's read, write and fsync, SQLite's calls), which must not
/// hold a thread of Swift's cooperative pool nor an event loop: a `NIOThreadPool` its owner starts by making it and
/// stops with `shutDown()` — or by letting it go, once the work handed over has run. No pool is process-wide: a file
/// source, the cache, each has its own, so a slow disk under one never queues the other's work.
///
/// A pool of one thread runs its work one piece at a time, in the order handed over. Work handed over after the pool
/// stopped runs on the caller's thread, so an owner winding down never loses a write.
public final class BlockingPool: Sendable {
    private let threads: NIOThreadPool
    /// The nice value the threads run their work at (Linux schedules threads, and a thread's nice value is its own);
    /// nil to leave it.
    private let niceness: Int32?

    /// Starts `threads` threads named `label` — at the nice value `niceness` when one is given: a background write at
    /// 10 leaves the event loops (0) about ten times its share of a busy core.
    public init(label: String, threads: Int = 1, niceness: Int32? = nil) {
        self.threads = NIOThreadPool(numberOfThreads: max(1, threads))
        self.niceness = niceness
        // `start()` names every pool's threads "TP-#n"; the label names them after their work (in `top -H`, a core dump).
        self.threads._start(threadNamePrefix: label + "-")
    }

    deinit {
        threads.shutdownGracefully { _ in }
    }

    /// Runs `work` on one of the threads and returns what it returned; a cancelled caller still waits for it, so
    /// that a change is never left half made.
    public func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            threads.submit { [niceness] state in
                // Run whether the pool is active or stopped (then on the caller's thread, whose nice value stays).
                if case .active = state, let niceness { Self.setNiceness(niceness) }
                continuation.resume(returning: Result { () throws(Failure) in try work() })
            }
        }
        return try result.get()
    }

    /// Stops the threads once the work handed over has run.
    public func shutDown() async {
        try? await threads.shutdownGracefully()
    }

    private static func setNiceness(_ niceness: Int32) {
        #if canImport(Glibc)
        // `who` 0 is the calling thread, this one only.
        guard getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) != niceness else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
