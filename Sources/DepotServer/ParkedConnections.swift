/// The connections of one subscriber group that are parked: their socket is full and all their subscriptions are in
/// snapshot mode, so they hold large states unencoded until they can write (`ConnectionSubscriptions.defersEncodings`).
///
/// The states published while they are parked go into one log for all of them, cut to what a snapshot-mode queue
/// would keep, and each parked connection remembers only where in the log it parked. A published state therefore
/// costs the group the same however many connections are parked; each connection's share is worked out once, when
/// it can write again (`unpark`). A value type on the group's loop; the states are only ever compared by identity.
struct ParkedConnections {
    /// A parked connection's states: those it held when it parked, and the log's entries from `from` on.
    private struct Member {
        var held: [StateFrame]
        var from: Int
    }

    private var members: [ObjectIdentifier: Member] = [:]
    /// States recorded while some connection was parked, each with its number in recording order, cut to the bounds.
    private var log: [(number: Int, state: StateFrame)] = []
    /// For each pipeline, the number of the newest state cut from the log: the states parked connections held of
    /// that pipeline before it are cut too, as a queue holding them all would have dropped them (its oldest first).
    private var cutThrough: [Int: Int] = [:]
    private var nextNumber = 0

    var isEmpty: Bool { members.isEmpty }
    var count: Int { members.count }
    /// How many states the log holds for the parked connections together — for tests: that it stays within the bounds
    /// is this value's own promise, which no output shows (a parked connection is sent only the newest state).
    var loggedStates: Int { log.count }

    func contains(_ key: ObjectIdentifier) -> Bool {
        members[key] != nil
    }

    /// Parks connection `key` holding `states` (in seq order, already within its queue's bounds); it gets every state
    /// recorded from now on, within the same bounds, when it is unparked.
    mutating func park(_ key: ObjectIdentifier, holding states: [StateFrame]) {
        members[key] = Member(held: states, from: nextNumber)
    }

    /// Records states handed out to the group's other connections (in seq order), for the parked ones, keeping of all
    /// the log holds only what a snapshot-mode queue of `limit` states and `byteLimit` bytes would. Nothing is kept
    /// while no connection is parked.
    mutating func record(_ states: [StateFrame], limit: Int, byteLimit: Int) {
        guard !states.isEmpty else { return }
        defer { nextNumber += states.count }
        guard !members.isEmpty else { return }
        for (offset, state) in states.enumerated() {
            log.append((nextNumber + offset, state))
        }
        let kept = Self.newestWithinBounds(log, limit: limit, byteLimit: byteLimit, state: \.state)
        guard kept.count < log.count else { return }
        var keptIndex = kept.startIndex
        for entry in log {
            if keptIndex < kept.endIndex, kept[keptIndex].number == entry.number {
                keptIndex += 1
            } else {
                cutThrough[entry.state.pipelineNumber] = entry.number
            }
        }
        log = kept
    }

    /// Unparks connection `key`: the states it held and those recorded since it parked, in seq order, cut to what its
    /// queues would keep of them together; nil when it was not parked.
    mutating func unpark(_ key: ObjectIdentifier, limit: Int, byteLimit: Int) -> [StateFrame]? {
        guard let member = members.removeValue(forKey: key) else { return nil }
        let since = log.drop { $0.number < member.from }.map(\.state)
        let stillHeld = member.held.filter { (cutThrough[$0.pipelineNumber] ?? -1) < member.from }
        let held = stillHeld + since.filter { state in !stillHeld.contains { $0 === state } }
        // The log is bounded by its cut whoever is parked; it is emptied only when no one is (a look for the oldest
        // member's position here would cost every unpark a pass over all of them).
        if members.isEmpty {
            log = []
            cutThrough = [:]
        }
        return Self.newestWithinBounds(held, limit: limit, byteLimit: byteLimit, state: \.self)
    }

    /// Forgets connection `key` (it closed, or left the group).
    mutating func remove(_ key: ObjectIdentifier) {
        members[key] = nil
        if members.isEmpty {
            log = []
            cutThrough = [:]
        }
    }

    /// Of `entries` (in seq order), those whose states snapshot-mode queues bound to `limit` states and `byteLimit`
    /// bytes would keep: for each pipeline, the newest states whose items fit `byteLimit` together, the newest always
    /// — a suffix, as a queue drops its oldest first. A state's snapshot is larger than its items, so what this leaves
    /// out the queue would have dropped. Because each pipeline's share is a suffix, cutting as states come keeps what
    /// cutting once at the end would.
    static func newestWithinBounds<Entry>(_ entries: [Entry], limit: Int, byteLimit: Int, state: (Entry) -> StateFrame) -> [Entry] {
        var kept: [Entry] = []
        /// Per pipeline, the states and bytes kept so far, or nil once one did not fit.
        var taken: [Int: (count: Int, bytes: Int)?] = [:]
        for entry in entries.reversed() {
            let frame = state(entry)
            guard let (count, bytes) = taken[frame.pipelineNumber, default: (0, 0)] else { continue }
            guard count == 0 || (count < limit && bytes + frame.itemBytes <= byteLimit) else {
                taken[frame.pipelineNumber] = .some(nil)
                continue
            }
            taken[frame.pipelineNumber] = (count + 1, bytes + frame.itemBytes)
            kept.append(entry)
        }
        return kept.reversed()
    }
}
