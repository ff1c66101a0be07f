import DequeModule

/// Work queued by many requesters, taken in a fair turn: round robin over users, and within a user over its
/// connections (lanes), each lane's work in the order it was queued.
///
/// So a flood waits its own turns: with work queued by U users, another user's next element comes out after at
/// most U − 1 elements of the others, besides the one under way, and one connection of a user that opened many
/// waits at most one turn of each of that user's lanes. The lane and user just served go to the back of their
/// turns only when the next element is taken, so work that arrives meanwhile comes before them — also when theirs
/// ran out and more of it came in the meantime. A value with no locks and no time, so every order is unit-tested.
struct FairQueue<Element> {
    /// Each lane's elements, oldest first; a lane is here only while it holds some.
    private var lanes: [Requester: Deque<Element>] = [:]
    /// The users with work, in the order of their next turns (and the same as a set).
    private var users: Deque<UInt32?> = []
    private var usersInTurn: Set<UInt32?> = []
    /// Each user's lanes with work, in the order of their next turns, but for the lane just served.
    private var turns: [UInt32?: Deque<Requester>] = [:]
    /// The lane the last element came from: back into its user's turns at the next pop, if it has work then.
    private var servedLane: Requester?
    /// The user the last element came from: back into the users' turns at the next pop, if it has work then.
    private var servedUser: UInt32??
    /// Elements queued, in all.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Queues `element` at the end of `requester`'s lane.
    mutating func append(_ element: Element, from requester: Requester) {
        count += 1
        if lanes[requester]?.append(element) != nil { return }
        lanes[requester] = [element]
        // The lane and the user served last take their turns back at the next pop, behind what arrives until then.
        if requester != servedLane {
            turns[requester.user, default: []].append(requester)
        }
        if servedUser != .some(requester.user) {
            giveTurn(to: requester.user)
        }
    }

    /// Queues `element` at the front of `requester`'s lane: it comes before everything that lane holds.
    mutating func prepend(_ element: Element, from requester: Requester) {
        guard lanes[requester] != nil else { return append(element, from: requester) }
        count += 1
        lanes[requester]?.prepend(element)
    }

    /// The next element in turn: the oldest of the next lane of the next user.
    mutating func popFirst() -> Element? {
        requeueServed()
        guard let user = users.popFirst() else { return nil }
        usersInTurn.remove(user)
        // Invariant: a user is in `users` only while it has a lane with work in `turns`.
        guard let lane = turns[user]?.popFirst(), let element = lanes[lane]?.popFirst() else {
            preconditionFailure("FairQueue: a user with a turn has no work")
        }
        count -= 1
        if turns[user]?.isEmpty == true {
            turns[user] = nil
        }
        if lanes[lane]?.isEmpty == true {
            lanes[lane] = nil
        }
        servedLane = lane
        servedUser = .some(user)
        return element
    }

    /// Takes out everything `requester` queued, oldest first.
    mutating func removeAll(from requester: Requester) -> [Element] {
        guard let removed = lanes.removeValue(forKey: requester) else { return [] }
        count -= removed.count
        if servedLane == requester {
            servedLane = nil
        }
        turns[requester.user]?.removeAll { $0 == requester }
        if turns[requester.user]?.isEmpty == true {
            turns[requester.user] = nil
            users.removeAll { $0 == requester.user }
            usersInTurn.remove(requester.user)
        }
        return Array(removed)
    }

    /// The elements `requester` has queued, oldest first.
    func queued(from requester: Requester) -> Deque<Element> {
        lanes[requester] ?? []
    }

    /// Elements queued by each user with work.
    var countByUser: [UInt32?: Int] {
        var counts: [UInt32?: Int] = [:]
        for (lane, elements) in lanes {
            counts[lane.user, default: 0] += elements.count
        }
        return counts
    }

    /// The lane and user served last go to the back of their turns, if they have work left.
    private mutating func requeueServed() {
        if let lane = servedLane {
            servedLane = nil
            if lanes[lane] != nil {
                turns[lane.user, default: []].append(lane)
            }
        }
        if case .some(let user) = servedUser {
            servedUser = nil
            if turns[user] != nil {
                giveTurn(to: user)
            }
        }
    }

    private mutating func giveTurn(to user: UInt32?) {
        if usersInTurn.insert(user).inserted {
            users.append(user)
        }
    }
}
