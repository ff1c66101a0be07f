import CBenchEpoll
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The load generator's receiving side: a few threads, each with an epoll set, reading client sockets as fast
/// as they can and framing what arrives. The same code reads depotd, Redis and the floor.
public final class ReaderPool: Sendable {
    private let threads: [ReaderThread]
    private let nextThread = Atomic<Int>(0)

    /// - Parameter threadCount: default: one per core, as many as depotd's event loops.
    public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount) {
        threads = (0..<max(1, threadCount)).map { _ in ReaderThread() }
        for thread in threads { thread.start() }
    }

    /// Starts reading `connection` (made non-blocking) on one of the threads, round-robin.
    public func add(_ connection: ClientConnection) {
        UnixSocket.setNonBlocking(connection.fd)
        let thread = threads[nextThread.wrappingAdd(1, ordering: .relaxed).oldValue % threads.count]
        thread.add(connection)
    }

    /// Stops reading and closes every connection; for the end of a scenario.
    public func closeAll() {
        for thread in threads { thread.closeAll() }
    }

    public func shutdown() {
        closeAll()
        for thread in threads { thread.stop() }
    }
}

/// One reading thread and its epoll set.
private final class ReaderThread: Sendable {
    private static let readBufferSize = 256 * 1024
    private let epoll: Int32
    private let wake: Int32
    private let connections = Mutex<[Int32: ClientConnection]>([:])
    private let isStopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init() {
        epoll = depot_bench_epoll_create()
        wake = depot_bench_eventfd()
        depot_bench_epoll_add(epoll, wake, 0)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "depot-bench reader"
        thread.start()
    }

    func add(_ connection: ClientConnection) {
        connections.withLock { $0[connection.fd] = connection }
        depot_bench_epoll_add(epoll, connection.fd, 0)
    }

    func closeAll() {
        let all = connections.withLock { all in
            defer { all = [:] }
            return Array(all.values)
        }
        for connection in all {
            depot_bench_epoll_remove(epoll, connection.fd)
            connection.close()
        }
    }

    func stop() {
        isStopping.store(true, ordering: .relaxed)
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        done.wait()
        close(epoll)
        close(wake)
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readBufferSize, alignment: 64)
        var fds = [Int32](repeating: 0, count: 64)
        var flags = [UInt32](repeating: 0, count: 64)
        defer {
            buffer.deallocate()
            done.signal()
        }
        while !isStopping.load(ordering: .relaxed) {
            let count = depot_bench_epoll_wait(epoll, &fds, &flags, 64, -1)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let fd = fds[index]
                guard fd != wake, let connection = connections.withLock({ $0[fd] }) else { continue }
                read(connection, into: buffer)
            }
        }
    }

    /// Reads what is there (a few reads at most, to stay fair to the other sockets) and frames it.
    private func read(_ connection: ClientConnection, into buffer: UnsafeMutableRawBufferPointer) {
        guard connection.isOpen else { return }
        for _ in 0..<4 {
            let count = Glibc.read(connection.fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                let time = MonotonicClock.now()
                connection.framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { message in
                    connection.sink.received(message, at: time, on: connection)
                }
                if count < buffer.count { return }
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                return
            } else {
                connection.isOpen = false
                depot_bench_epoll_remove(epoll, connection.fd)
                connection.sink.closed(connection)
                return
            }
        }
    }
}
