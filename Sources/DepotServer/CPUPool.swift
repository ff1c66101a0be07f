import NIOCore
import NIOPosix

/// The threads CPU-heavy work runs on, off the event loops: encoding a large state, shaping a large answer — work
/// proportional to the collection, which must not hold a loop. Owned by the server, which starts them as it starts
/// serving and stops them once every connection is closed (no process-wide pool). Work handed over while they do
/// not run (before the start, after the stop, or in a fan-out tested without a server) runs on the caller's thread.
final class CPUPool: Sendable {
    private let pool: NIOThreadPool

    /// One thread per core.
    init(threads: Int = System.coreCount) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
    }

    /// A pool never started: its work runs on the caller's thread (a fan-out or a frame tested without a server).
    static let callersThread = CPUPool(threads: 1)

    func start() {
        pool.start()
    }

    /// Stops the threads once the work handed over has run.
    func shutDown() async {
        try? await pool.shutdownGracefully()
    }

    /// Runs `work` on one of the threads; on the caller's when they do not run (NIO then calls it at once).
    func run(_ work: @escaping @Sendable () -> Void) {
        pool.submit { _ in work() }
    }
}
