import DepotPlatform
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One thread of its own, at a lower scheduling priority than the event loops (nice 10), for the work of a file
/// source's rewrite: the file's bytes joined, their digest and the write. At 100,000 items that is some 30 ms of
/// CPU; on a machine whose cores the readers keep busy, at the same priority it would take that time from them,
/// while the removal that asked for it can wait; a job yields between the pieces of its work
/// (`yieldBetweenPieces`), so a loop that wakes runs within a piece's time (a quarter of a millisecond), not a time
/// slice. Jobs run one at a time, in order, so they share one buffer (`bufferSize`) to write through: a rewrite
/// allocates nothing in proportion to the file. The thread starts with the first job and stays for the life of the
/// process, idle on a semaphore, as a dispatch queue's thread would.
final class BackgroundWriter: Sendable {
    static let shared = BackgroundWriter()

    /// The nice value the thread runs at: the loops (0) get about ten times its share of a busy core.
    static let niceness: Int32 = 10

    /// The bytes of the buffer jobs share: large enough that a write per piece costs little, small enough to stay
    /// in the cache.
    static let bufferSize = 256 * 1024

    private let jobs = Locked<(queue: [@Sendable (UnsafeMutableRawBufferPointer) -> Void], started: Bool)>(([], false))
    private let ready = DispatchSemaphore(value: 0)

    /// Runs `work` on the thread with the buffer jobs share, which is `work`'s alone until it returns, and returns
    /// what it gave.
    func run<Value: Sendable>(usingBuffer work: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            submit { buffer in continuation.resume(returning: work(buffer)) }
        }
    }

    /// Called by a job between two pieces of its work: lets a thread that woke meanwhile — an event loop with a state
    /// to deliver — run now rather than after this thread's time slice. The nice value gives the loops the larger
    /// share of a busy core, but not the core at once: a loop woken while this thread runs waited up to a slice (a few
    /// milliseconds), which was the tail of a delivery's latency while a large file was written.
    static func yieldBetweenPieces() {
        #if canImport(Glibc)
        sched_yield()
        #endif
    }

    private func submit(_ job: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Void) {
        let mustStart = jobs.withLock { jobs in
            jobs.queue.append(job)
            defer { jobs.started = true }
            return !jobs.started
        }
        if mustStart {
            let thread = Thread { [self] in serve() }
            thread.name = "depot-file-write"
            thread.start()
        }
        ready.signal()
    }

    private func serve() {
        #if canImport(Glibc)
        // Linux schedules threads, and a thread's nice value is its own: `who` 0 is the calling thread, this one only.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
        #endif
        // Never freed: the thread lives as long as the process.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 64)
        while true {
            ready.wait()
            let job = jobs.withLock { $0.queue.removeFirst() }
            job(buffer)
        }
    }
}
