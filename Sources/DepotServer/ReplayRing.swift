import NIOCore

/// The recent states' wire forms, kept so a subscription can resume after the state a client last had: every
/// state since it, in order, in the form its mode needs.
///
/// Bounded by a number of states and by bytes (the buffers it holds, counted once each). Only encodings are
/// kept, never a state's items: a success state is replayable to delta-mode subscriptions through its delta
/// (always kept when it has one) or in full when it is small, and to snapshot-mode ones when it is small. A
/// resume that needs a form the ring lacks, or a state it no longer holds, is a resync.
struct ReplayRing {
    /// One state no longer current.
    struct Entry {
        let seq: Int
        let isSuccess: Bool
        /// The seq of the success state its delta applies to; nil without a delta.
        let deltaBase: Int?
        /// The last success published before it.
        let precedingSuccess: Int?
        let snapshot: ByteBuffer?
        let countedItems: ByteBuffer?
        let stateWithDelta: (state: ByteBuffer, delta: ByteBuffer)?

        /// Takes the forms of `frame` a resume may need, encoding the small ones now if they were not yet: a state
        /// that is not a success, the delta of one that has it, and the full forms of a success whose items are at
        /// most `eagerLimit` bytes. A larger success keeps only its delta: one of its snapshots would crowd out
        /// thousands of deltas, and a client that needs it in full is as well served by the current state (a resync).
        init(retiring frame: StateFrame, eagerLimit: Int = ReplayRing.eagerEncodingLimit) {
            seq = frame.seq
            isSuccess = frame.isSuccess
            deltaBase = frame.delta?.base
            precedingSuccess = frame.precedingSuccess
            if frame.isSuccess {
                let isSmall = frame.itemBytes <= eagerLimit
                snapshot = isSmall ? frame.snapshot : nil
                countedItems = isSmall ? frame.countedItems : nil
                stateWithDelta = frame.stateWithDelta
            } else {
                snapshot = frame.snapshot
                countedItems = nil
                stateWithDelta = nil
            }
        }

        /// The last success a client holds once it has this state.
        var heldSuccess: Int? { isSuccess ? seq : precedingSuccess }

        /// The bytes of the buffers it holds.
        var bytes: Int {
            (snapshot?.readableBytes ?? 0) + (countedItems?.readableBytes ?? 0)
                + (stateWithDelta.map { $0.state.readableBytes + $0.delta.readableBytes } ?? 0)
        }
    }

    /// The item bytes up to which a success state's full forms are encoded for the ring even if nobody needed them.
    static let eagerEncodingLimit = 64 * 1024

    private var entries = CircularBuffer<Entry>(initialCapacity: 16)
    private(set) var bytes = 0
    /// The highest seq dropped to stay within the bounds; -1 while none was.
    private(set) var droppedThrough = -1

    var count: Int { entries.count }

    /// The oldest seq held; nil when empty.
    var firstSeq: Int? { entries.first?.seq }

    /// Adds the state that just stopped being current (seqs come in order), then drops the oldest while more
    /// than `limit` states or `byteLimit` bytes are held.
    mutating func append(_ entry: Entry, limit: Int, byteLimit: Int) {
        entries.append(entry)
        bytes += entry.bytes
        trim(limit: limit, byteLimit: byteLimit)
    }

    /// Drops the oldest states while more than `limit` states or `byteLimit` bytes are held.
    mutating func trim(limit: Int, byteLimit: Int) {
        while !entries.isEmpty, entries.count > limit || bytes > byteLimit {
            let dropped = entries.removeFirst()
            bytes -= dropped.bytes
            droppedThrough = max(droppedThrough, dropped.seq)
        }
    }

    /// The entries after `seq` and before `end` (the current state's seq), when the ring holds every one of
    /// them; nil otherwise.
    func entries(after seq: Int, before end: Int) -> ArraySlice<Entry>? {
        guard seq + 1 < end else { return [] }
        guard let first = entries.first, let last = entries.last, first.seq <= seq + 1, last.seq == end - 1 else { return nil }
        let start = entries.index(entries.startIndex, offsetBy: seq + 1 - first.seq)
        return ArraySlice(entries[start...])
    }

    /// For a ring whose seqs have gaps (a pipeline's output): the entries after `seq`, when none of them was
    /// dropped; nil otherwise.
    func sparseEntries(after seq: Int) -> ArraySlice<Entry>? {
        guard seq >= droppedThrough else { return nil }
        let start = entries.firstIndex { $0.seq > seq } ?? entries.endIndex
        return ArraySlice(entries[start...])
    }

    /// For a ring whose seqs have gaps: the entry of `seq`, if held.
    func sparseEntry(_ seq: Int) -> Entry? {
        entries.first { $0.seq == seq }
    }

    /// The entry of `seq`, if held.
    func entry(_ seq: Int) -> Entry? {
        guard let first = entries.first, seq >= first.seq, seq - first.seq < entries.count else { return nil }
        return entries[entries.index(entries.startIndex, offsetBy: seq - first.seq)]
    }
}
