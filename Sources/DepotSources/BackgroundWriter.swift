import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own (a `BlockingPool` of one), at a lower scheduling priority than the event loops (nice 10), for
/// the work of a file source's rewrite: the file's bytes joined, their digest and the write. At 100,000 items that is
/// some 30 ms of CPU; on a machine whose cores the readers keep busy, at the same priority it would take that time
/// from them, while the removal that asked for it can wait; a job yields between the pieces of its work
/// (`yieldBetweenPieces`), so a loop that wakes runs within a piece's time (a quarter of a millisecond), not a time
/// slice. Jobs run one at a time, in order, each through a buffer of `bufferSize`: a rewrite allocates nothing in
/// proportion to the file. The thread stops when the source that owns it is let go.
final class BackgroundWriter: Sendable {
    /// The nice value the thread runs at: the loops (0) get about ten times its share of a busy core.
    static let niceness: Int32 = 10

    /// The bytes of a job's buffer: large enough that a write per piece costs little, small enough to stay in the
    /// cache.
    static let bufferSize = 256 * 1024

    private let thread = BlockingPool(label: "depot-file-write", niceness: niceness)

    /// Runs `work` on the thread with a buffer of its own, and returns what it gave.
    func run<Value: Sendable>(usingBuffer work: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Value) async -> Value {
        await thread.run { () -> Value in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 64)
            defer { buffer.deallocate() }
            return work(buffer)
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
}
