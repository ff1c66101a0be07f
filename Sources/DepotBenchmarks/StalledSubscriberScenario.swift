#if canImport(Glibc)
import Glibc
#endif

/// Scenario 3b: depotd's memory while R subscribers read S states and one subscriber, with a small receive
/// buffer, never reads. Its queue holds at most `queueLimit` states, so the growth must stay within the bytes
/// of the newest `queueLimit` states. Afterwards the stalled subscriber reads, and must get the newest state.
///
/// The states come from pipelined `load` and `wipe` requests (loading, success of N items, idle: three
/// states a cycle; the wipe in between keeps a load from joining the one before it).
public struct StalledSubscriberScenario: Sendable {
    public var items: Int
    public var readers: Int
    public var states: Int
    public var stalled: Bool
    public var queueLimit: Int
    public var settle: Double

    public init(items: Int, readers: Int, states: Int, stalled: Bool, queueLimit: Int, settle: Double) {
        self.items = items
        self.readers = readers
        self.states = states
        self.stalled = stalled
        self.queueLimit = queueLimit
        self.settle = settle
    }

    public func run(on depotd: DepotdUnderTest, pool: ReaderPool) throws -> StalledSubscriberFigures {
        try depotd.prepare(items: items)
        let tracker = SubscriberTracker()
        tracker.arm(seq: depotd.currentSeq, count: readers)
        for index in 0..<readers {
            let fd = try UnixSocket.connect(to: depotd.socketPath)
            pool.add(ClientConnection(fd: fd, index: index, framing: .lines, sink: tracker))
            try UnixSocket.writeAll(fd, depotd.subscribeMessage)
        }
        defer { pool.closeAll() }
        try tracker.wait(timeout: 120, what: "\(readers) subscriptions to depotd")
        var stalledFD: Int32?
        if stalled {
            let fd = try UnixSocket.connect(to: depotd.socketPath, receiveBuffer: 4096)
            try UnixSocket.writeAll(fd, depotd.subscribeMessage)
            stalledFD = fd
        }
        defer { if let stalledFD { close(stalledFD) } }
        MonotonicClock.sleep(seconds: settle)
        let before = try depotd.process.residentKiB()

        let cycles = (states + 2) / 3
        let finalSeq = depotd.currentSeq + cycles * 3
        tracker.arm(seq: finalSeq, count: readers)
        try pipelineCycles(cycles, on: depotd.controlConnection)
        try tracker.wait(timeout: 300, what: "seq \(finalSeq) at \(readers) reading subscribers")
        _ = tracker.takeArrivals()
        MonotonicClock.sleep(seconds: settle)
        let after = try depotd.process.residentKiB()

        var read: Int?
        var sawNewest: Bool?
        if let stalledFD {
            (read, sawNewest) = try drain(stalledFD, until: finalSeq)
        }
        return StalledSubscriberFigures(
            stalled: stalled,
            readers: readers,
            states: cycles * 3,
            items: items,
            queueLimit: queueLimit,
            beforeKiB: before,
            afterKiB: after,
            growthKiB: after - before,
            queueBoundKiB: queueBoundBytes(endingAt: finalSeq, cycles: cycles) / 1024,
            stalledMessagesRead: read,
            stalledSawNewest: sawNewest
        )
    }

    /// Sends the cycles with up to 32 requests in flight, and reads every answer.
    private func pipelineCycles(_ cycles: Int, on control: ControlConnection) throws {
        let load = Array(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#.utf8) + [0x0A]
        let wipe = Array(#"{"jsonrpc":"2.0","id":2,"method":"wipe"}"#.utf8) + [0x0A]
        let total = cycles * 2
        var sent = 0
        var answered = 0
        while answered < total {
            while sent < total && sent - answered < 32 {
                try control.send(sent % 2 == 0 ? load : wipe)
                sent += 1
            }
            let (answer, head) = try control.receive()
            if answer.isError {
                throw BenchError("depotd answered a load or wipe with an error: \(String(decoding: head, as: UTF8.self))")
            }
            answered += 1
        }
    }

    /// The bytes of the newest `queueLimit` states: each cycle is loading, success (the items), idle.
    private func queueBoundBytes(endingAt finalSeq: Int, cycles: Int) -> Int {
        let success = FloorUnderTest.stateBytes(seq: finalSeq, items: items)
        let loading = #"{"seq":\#(finalSeq),"status":"loading"}"#.utf8.count
        let idle = #"{"seq":\#(finalSeq),"status":"idle"}"#.utf8.count
        let newest = min(queueLimit, cycles * 3)
        // Counting back from the last state, an idle one: idle, success, loading, idle, …
        return (0..<newest).reduce(0) { sum, back in
            sum + [idle, success, loading][back % 3]
        }
    }

    /// Reads the stalled subscriber until it has `seq`; returns how many messages that took.
    private func drain(_ fd: Int32, until seq: Int) throws -> (Int, Bool) {
        let framer = LineFramer()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var messages = 0
        var newest = -1
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while newest < seq {
            let count = read(fd, buffer.baseAddress, buffer.count)
            guard count > 0 else { return (messages, false) }
            framer.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { message in
                messages += 1
                if let seq = message.seq { newest = max(newest, seq) }
            }
        }
        return (messages, newest == seq)
    }
}
