import DepotRPC
import DepotWire
import NIOCore

/// One subscription of a connection: its id and its bounded queue of states not yet written.
///
/// States enter in seq order (anything not newer than the last one queued is ignored, which also drops the
/// duplicate a subscriber can receive right after it subscribed). The queue is bounded by a count of states and
/// by their bytes: past either, the oldest states are dropped, and the newest is always kept (so one state larger
/// than the byte bound still goes out, alone); the next notification written says how many were skipped.
struct Subscription {
    let id: String
    /// The notification prefix for this subscription when nothing was skipped.
    private let prefix: ByteBuffer
    /// False until the `subscribe` response has been written; until then no state is queued.
    var isActive = false
    private var lastQueuedSeq = -1
    private var lastWrittenSeq: Int?
    /// Only the wire bytes are queued, not the published state: a state the repository has moved past must
    /// not keep its items alive in the queue of a subscriber that stopped reading, or such a subscriber would
    /// hold twice its queue's bytes.
    private var queue = CircularBuffer<(seq: Int, bytes: ByteBuffer)>(initialCapacity: 4)
    /// The bytes of the queued states.
    private(set) var queuedBytes = 0

    init(id: String) {
        self.id = id
        self.prefix = StateNotification.prefix(subscription: id)
    }

    var hasQueuedStates: Bool { !queue.isEmpty }

    var queuedCount: Int { queue.count }

    /// Queues `state` unless it is not newer than the last one; then drops the oldest states while more than
    /// `limit` are queued or their bytes exceed `byteLimit`, keeping the newest whatever its size.
    mutating func enqueue(_ state: EncodedState, limit: Int, byteLimit: Int = .max) {
        guard state.seq > lastQueuedSeq else { return }
        lastQueuedSeq = state.seq
        queue.append((state.seq, state.bytes))
        queuedBytes += state.bytes.readableBytes
        while queue.count > 1, queue.count > limit || queuedBytes > byteLimit {
            queuedBytes -= queue.removeFirst().bytes.readableBytes
        }
    }

    /// The next notification to write: its prefix (naming how many states were skipped) and the state's bytes.
    mutating func nextNotification() -> (prefix: ByteBuffer, state: ByteBuffer)? {
        guard let state = queue.popFirst() else { return nil }
        queuedBytes -= state.bytes.readableBytes
        let skipped = lastWrittenSeq.map { state.seq - $0 - 1 } ?? 0
        lastWrittenSeq = state.seq
        let prefix = skipped > 0 ? StateNotification.prefix(subscription: id, skipped: skipped) : self.prefix
        return (prefix, state.bytes)
    }
}
