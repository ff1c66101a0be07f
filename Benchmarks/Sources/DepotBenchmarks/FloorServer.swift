import CBenchEpoll
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The floor: the least a server must do to fan the same bytes out to K Unix-socket readers, or to answer a
/// request with a given number of bytes. No JSON, no framing beyond a newline; one writer thread per core
/// (as many as depotd's event loops), each writing non-blocking to its share of the connections.
///
/// Its protocol, one line per message: `subscribe` (answered `ok`; the connection then receives every
/// publication), `publish SEQ BYTES` (every subscriber receives a line of BYTES bytes starting `{"seq":SEQ,`),
/// `request BYTES` (answered with a line of BYTES bytes).
public final class FloorServer: Sendable {
    private let listener: Int32
    private let workers: [FloorWorker]

    public init(socketPath: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        listener = try UnixSocket.listen(on: socketPath)
        workers = (0..<max(1, threads)).map { _ in FloorWorker() }
        for worker in workers { worker.peers = workers }
    }

    /// Accepts connections until the process is killed.
    public func run() -> Never {
        for worker in workers { worker.start() }
        var next = 0
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE { MonotonicClock.sleep(seconds: 0.01) }
                continue
            }
            UnixSocket.setNonBlocking(fd)
            workers[next % workers.count].post(.adopt(fd))
            next += 1
        }
    }

    /// A line of exactly `count` bytes that starts `{"seq":SEQ,` and ends with a newline.
    static func line(seq: Int, count: Int) -> [UInt8] {
        var bytes = Array(#"{"seq":\#(seq),"x":""#.utf8)
        let fill = max(0, count - bytes.count - 3)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: fill)
        bytes += Array("\"}\n".utf8)
        return bytes
    }
}

/// One floor thread: its connections, their unwritten bytes, and a mailbox for new connections and publications.
private final class FloorWorker: @unchecked Sendable {
    // Sendable without checks: `peers` is set once before `start()`; `connections` is touched only on the
    // worker's own thread; the mailbox is behind a mutex.
    enum Job {
        case adopt(Int32)
        case publish([UInt8])
    }

    final class Peer {
        let fd: Int32
        var isSubscriber = false
        var inbound: [UInt8] = []
        var outbound: [(bytes: [UInt8], offset: Int)] = []
        var wantsWritable = false
        init(fd: Int32) { self.fd = fd }
    }

    var peers: [FloorWorker] = []
    private let epoll = depot_bench_epoll_create()
    private let wake = depot_bench_eventfd()
    private let mailbox = Mutex<[Job]>([])
    private var connections: [Int32: Peer] = [:]
    private var answers: [Int: [UInt8]] = [:]

    func start() {
        depot_bench_epoll_add(epoll, wake, 0)
        let thread = Thread { [self] in run() }
        thread.name = "floor"
        thread.start()
    }

    func post(_ job: Job) {
        mailbox.withLock { $0.append(job) }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    private func run() {
        var fds = [Int32](repeating: 0, count: 256)
        var flags = [UInt32](repeating: 0, count: 256)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 64)
        while true {
            let count = depot_bench_epoll_wait(epoll, &fds, &flags, 256, -1)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let fd = fds[index]
                if fd == wake {
                    var value: UInt64 = 0
                    _ = read(wake, &value, 8)
                    for job in mailbox.withLock({ jobs in
                        defer { jobs = [] }
                        return jobs
                    }) { handle(job) }
                    continue
                }
                guard let peer = connections[fd] else { continue }
                if flags[index] & DEPOT_BENCH_WRITABLE != 0 { flush(peer) }
                if flags[index] & DEPOT_BENCH_READABLE != 0 { receive(peer, buffer) }
            }
        }
    }

    private func handle(_ job: Job) {
        switch job {
        case .adopt(let fd):
            connections[fd] = Peer(fd: fd)
            depot_bench_epoll_add(epoll, fd, 0)
        case .publish(let line):
            for peer in connections.values where peer.isSubscriber {
                peer.outbound.append((line, 0))
                flush(peer)
            }
        }
    }

    private func receive(_ peer: Peer, _ buffer: UnsafeMutableRawBufferPointer) {
        let count = read(peer.fd, buffer.baseAddress, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            depot_bench_epoll_remove(epoll, peer.fd)
            close(peer.fd)
            connections[peer.fd] = nil
            return
        }
        peer.inbound += UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        while let newline = peer.inbound.firstIndex(of: 0x0A) {
            let line = String(decoding: peer.inbound[..<newline], as: UTF8.self)
            peer.inbound.removeSubrange(...newline)
            let words = line.split(separator: " ")
            switch words.first {
            case "subscribe":
                peer.isSubscriber = true
                peer.outbound.append((Array("ok\n".utf8), 0))
            case "publish" where words.count == 3:
                let published = FloorServer.line(seq: Int(words[1]) ?? 0, count: Int(words[2]) ?? 0)
                for worker in peers { worker.post(.publish(published)) }
            case "request" where words.count == 2:
                let size = Int(words[1]) ?? 0
                if answers[size] == nil { answers[size] = FloorServer.line(seq: 0, count: size) }
                peer.outbound.append((answers[size]!, 0))
            default:
                peer.outbound.append((Array("error\n".utf8), 0))
            }
        }
        flush(peer)
    }

    private func flush(_ peer: Peer) {
        while let first = peer.outbound.first {
            let written = first.bytes.withUnsafeBytes { bytes in
                write(peer.fd, bytes.baseAddress! + first.offset, bytes.count - first.offset)
            }
            if written < 0 {
                if errno == EAGAIN { break }
                peer.outbound.removeAll()
                break
            }
            if first.offset + written == first.bytes.count {
                peer.outbound.removeFirst()
            } else {
                peer.outbound[0].offset += written
            }
        }
        let wantsWritable = !peer.outbound.isEmpty
        if wantsWritable != peer.wantsWritable {
            peer.wantsWritable = wantsWritable
            depot_bench_epoll_modify(epoll, peer.fd, wantsWritable ? 1 : 0)
        }
    }
}
