#if canImport(Glibc)
import Glibc
#endif

/// Scenario 3b: depotd's memory while R subscribers read S states and one subscriber, with a small receive
/// buffer, never reads. Its queue holds at most `queueLimit` states and its connection the one being written,
/// so what it costs must stay within their bytes. Afterwards the stalled subscriber reads, and must get the
/// newest state.
///
/// All in one depotd process, in three phases of S states each: a warm-up that brings the allocator to what
/// this load needs (glibc keeps memory it freed, so the first phase's growth is mostly the load's own), one
/// without a stalled subscriber (what the load still costs once warm: the baseline), and one with it. The
/// stalled subscriber's cost is the last phase's growth less the baseline's (the phases' growths move by up to
/// ±2 MiB); what depotd gives back once the stalled subscriber has read everything is a steadier lower bound
/// of it (glibc keeps some of what is freed). Two processes, one with and one without, differed by several
/// MiB from run to run in how much their allocators kept. depotd runs with `mallocTunables`.
///
/// The states come from pipelined `load` and `wipe` requests (loading, success of N items, idle: three
/// states a cycle; the wipe in between keeps a load from joining the one before it).
public struct StalledSubscriberScenario: Sendable {
    /// glibc settings for the depotd measured here, so that its resident memory shows what it holds rather
    /// than what its allocator kept: blocks of 64 KiB and more (every encoded state of 100 items) are
    /// mapped on their own and returned when freed, and free memory at the top of the heap is returned.
    /// Without them two phases of the same load differed by up to 8 MiB, as much as the bound measured.
    public static let mallocTunables = "glibc.malloc.mmap_threshold=\(mmapThreshold):glibc.malloc.trim_threshold=131072"
    /// The size from which, under `mallocTunables`, a block has a mapping of its own.
    static let mmapThreshold = 65536

    public var items: Int
    public var readers: Int
    public var states: Int
    public var queueLimit: Int
    public var settle: Double

    public init(items: Int, readers: Int, states: Int, queueLimit: Int, settle: Double) {
        self.items = items
        self.readers = readers
        self.states = states
        self.queueLimit = queueLimit
        self.settle = settle
    }

    /// The baseline phase's figures, then the stalled phase's.
    public func run(on depotd: DepotdUnderTest, pool: ReaderPool) throws -> [StalledSubscriberFigures] {
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

        _ = try phase(on: depotd, tracker: tracker, stalledFD: nil)
        let baseline = try phase(on: depotd, tracker: tracker, stalledFD: nil)
        let fd = try UnixSocket.connect(to: depotd.socketPath, receiveBuffer: 4096)
        defer { close(fd) }
        try UnixSocket.writeAll(fd, depotd.subscribeMessage)
        var stalled = try phase(on: depotd, tracker: tracker, stalledFD: fd)
        let finalSeq = depotd.currentSeq
        let (read, sawNewest) = try drain(fd, until: finalSeq)
        stalled.stalledMessagesRead = read
        stalled.stalledSawNewest = sawNewest
        // Its queue is empty now: what depotd gives back is what the queue held, less what glibc keeps.
        MonotonicClock.sleep(seconds: settle)
        stalled.releasedKiB = stalled.afterKiB - (try depotd.process.residentKiB())
        return [baseline, stalled]
    }

    /// S states while the readers read (and the subscriber on `stalledFD`, if any, does not), measuring
    /// depotd's resident memory before and after, each once things have settled.
    private func phase(on depotd: DepotdUnderTest, tracker: SubscriberTracker, stalledFD: Int32?) throws -> StalledSubscriberFigures {
        MonotonicClock.sleep(seconds: settle)
        let before = try depotd.process.residentKiB()
        let cycles = (states + 2) / 3
        let finalSeq = depotd.currentSeq + cycles * 3
        tracker.arm(seq: finalSeq, count: readers)
        try pipelineCycles(cycles, on: depotd)
        try tracker.wait(timeout: 300, what: "seq \(finalSeq) at \(readers) reading subscribers")
        depotd.noteSeq(finalSeq)
        _ = tracker.takeArrivals()
        MonotonicClock.sleep(seconds: settle)
        let after = try depotd.process.residentKiB()
        return StalledSubscriberFigures(
            stalled: stalledFD != nil,
            readers: readers,
            states: cycles * 3,
            items: items,
            queueLimit: queueLimit,
            beforeKiB: before,
            afterKiB: after,
            growthKiB: after - before,
            queueBoundKiB: queueBoundBytes(endingAt: finalSeq, cycles: cycles) / 1024,
            stalledMessagesRead: nil,
            stalledSawNewest: nil,
            releasedKiB: nil
        )
    }

    /// Sends the cycles with up to 32 requests in flight, and reads every answer.
    private func pipelineCycles(_ cycles: Int, on depotd: DepotdUnderTest) throws {
        let control = depotd.controlConnection
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

    /// The bytes of the newest `queueLimit` states and of one success state (large ones in the pages they
    /// occupy): each cycle is loading, success (the items), idle.
    private func queueBoundBytes(endingAt finalSeq: Int, cycles: Int) -> Int {
        let encoded = FloorUnderTest.stateBytes(seq: finalSeq, items: items)
        // With `mallocTunables`, a state of `mmapThreshold` bytes or more has a mapping of its own: whole
        // pages, after glibc's 16-byte chunk header.
        let success = encoded < Self.mmapThreshold ? encoded : (encoded + 16 + 4095) / 4096 * 4096
        let loading = #"{"seq":\#(finalSeq),"status":"loading"}"#.utf8.count
        let idle = #"{"seq":\#(finalSeq),"status":"idle"}"#.utf8.count
        // Counting back from the last state, an idle one: idle, success, loading, idle, …
        let queued = (0..<min(queueLimit, cycles * 3)).reduce(0) { sum, back in
            sum + [idle, success, loading][back % 3]
        }
        // Plus the notification the connection is writing, which left the queue when its write began and stays
        // until the socket has taken all of it: the write the socket refused, so one of the large states.
        return queued + success
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
