import DepotTestSupport
import Testing

@testable import DepotCore

@Suite("FairQueue: round robin over users, then connections, each lane in order")
struct FairQueueTests {
    static let alice1 = Requester(user: 1000, connection: 1)
    static let alice2 = Requester(user: 1000, connection: 2)
    static let bob = Requester(user: 1001, connection: 3)
    static let carol = Requester(user: 1002, connection: 4)

    /// Pops everything, in turn.
    static func drained(_ queue: inout FairQueue<String>) -> [String] {
        var out: [String] = []
        while let next = queue.popFirst() { out.append(next) }
        #expect(queue.isEmpty && queue.count == 0)
        return out
    }

    @Test("one requester: first in, first out")
    func oneLaneIsFIFO() {
        var queue = FairQueue<String>()
        for n in 1...5 { queue.append("a\(n)", from: Self.alice1) }
        #expect(queue.count == 5)
        #expect(Self.drained(&queue) == ["a1", "a2", "a3", "a4", "a5"])
    }

    @Test("a flood from one user waits its turns: another user's work comes out after at most one of the flood's")
    func floodDoesNotStarve() {
        var queue = FairQueue<String>()
        for n in 1...100 { queue.append("a\(n)", from: Self.alice1) }
        queue.append("b1", from: Self.bob)
        queue.append("b2", from: Self.bob)
        let order = Self.drained(&queue)
        #expect(Array(order.prefix(4)) == ["a1", "b1", "a2", "b2"])
        #expect(order.count == 102)
    }

    @Test("work that arrives while an element is under way comes before the user just served, and its other lanes")
    func arrivalsGoBeforeTheServed() {
        var queue = FairQueue<String>()
        for n in 1...3 { queue.append("a\(n)", from: Self.alice1) }
        #expect(queue.popFirst() == "a1")
        queue.append("b1", from: Self.bob)
        queue.append("a2.1", from: Self.alice2)
        #expect(Self.drained(&queue) == ["b1", "a2.1", "a2", "a3"])
    }

    @Test("users take turns first, then the connections of a user: many connections do not give a user more turns")
    func usersBeforeConnections() {
        var queue = FairQueue<String>()
        queue.append("a1.1", from: Self.alice1)
        queue.append("a1.2", from: Self.alice1)
        queue.append("a2.1", from: Self.alice2)
        queue.append("a2.2", from: Self.alice2)
        queue.append("b.1", from: Self.bob)
        queue.append("b.2", from: Self.bob)
        queue.append("c.1", from: Self.carol)
        #expect(Self.drained(&queue) == ["a1.1", "b.1", "c.1", "a2.1", "b.2", "a1.2", "a2.2"])
    }

    @Test("a lane that empties and fills again while its element is under way goes to the back, behind what arrived meanwhile")
    func refilledLaneGoesToTheBack() {
        var queue = FairQueue<String>()
        queue.append("a1", from: Self.alice1)
        queue.append("b1", from: Self.bob)
        #expect(queue.popFirst() == "a1")
        queue.append("a2", from: Self.alice1)
        queue.append("c1", from: Self.carol)
        #expect(Self.drained(&queue) == ["b1", "c1", "a2"])
    }

    @Test("a flood whose first element was taken before the rest came waits behind another user's, as if it had not emptied")
    func floodAfterItsFirstWasTaken() {
        var queue = FairQueue<String>()
        queue.append("a1", from: Self.alice1)
        #expect(queue.popFirst() == "a1")
        for n in 2...5 { queue.append("a\(n)", from: Self.alice1) }
        queue.append("a2.1", from: Self.alice2)
        queue.append("b1", from: Self.bob)
        #expect(Self.drained(&queue) == ["b1", "a2.1", "a2", "a3", "a4", "a5"])
    }

    @Test("with its user's other lane, an emptied and refilled lane goes behind that lane too")
    func refilledLaneBehindItsUsersOthers() {
        var queue = FairQueue<String>()
        queue.append("a1.1", from: Self.alice1)
        #expect(queue.popFirst() == "a1.1")
        queue.append("a1.2", from: Self.alice1)
        queue.append("a2.1", from: Self.alice2)
        #expect(Self.drained(&queue) == ["a2.1", "a1.2"])
    }

    @Test("removing a requester's work takes its lane out of the turns and leaves every other lane's order")
    func removeAll() {
        var queue = FairQueue<String>()
        queue.append("a1.1", from: Self.alice1)
        queue.append("b.1", from: Self.bob)
        queue.append("a1.2", from: Self.alice1)
        queue.append("a2.1", from: Self.alice2)
        #expect(queue.removeAll(from: Self.alice1) == ["a1.1", "a1.2"])
        #expect(queue.count == 2)
        #expect(queue.removeAll(from: Self.alice1) == [])
        #expect(queue.queued(from: Self.alice1).isEmpty)
        #expect(Self.drained(&queue) == ["a2.1", "b.1"])
    }

    @Test("removing a user's last lane takes the user out of the turns")
    func removeLastLaneOfUser() {
        var queue = FairQueue<String>()
        queue.append("b.1", from: Self.bob)
        queue.append("c.1", from: Self.carol)
        queue.append("b.2", from: Self.bob)
        _ = queue.removeAll(from: Self.bob)
        #expect(queue.countByUser == [1002: 1])
        queue.append("b.3", from: Self.bob)
        #expect(Self.drained(&queue) == ["c.1", "b.3"])
    }

    @Test("prepend puts work before everything its lane holds, and starts a lane when it holds none")
    func prepend() {
        var queue = FairQueue<String>()
        queue.prepend("b.0", from: Self.bob)
        queue.append("b.1", from: Self.bob)
        queue.prepend("b.-1", from: Self.bob)
        #expect(Array(queue.queued(from: Self.bob)) == ["b.-1", "b.0", "b.1"])
        #expect(Self.drained(&queue) == ["b.-1", "b.0", "b.1"])
    }

    @Test("the daemon's own work is a user of its own")
    func daemonIsAUser() {
        var queue = FairQueue<String>()
        for n in 1...3 { queue.append("a\(n)", from: Self.alice1) }
        queue.append("d1", from: .daemon)
        #expect(queue.countByUser == [1000: 3, nil: 1])
        #expect(Self.drained(&queue) == ["a1", "d1", "a2", "a3"])
    }

    @Test("random operations keep every lane in order, the count right, and no user waits more than a round of the others")
    func randomOperations() {
        var generator = SplitMix64(seed: 42)
        let requesters = (0..<12).map { Requester(user: UInt32(1000 + $0 % 4), connection: UInt64($0)) }
        for _ in 0..<200 {
            var queue = FairQueue<String>()
            var model: [Requester: [String]] = [:]
            var next = 0
            for _ in 0..<60 {
                let requester = requesters[Int(generator.next() % UInt64(requesters.count))]
                switch generator.next() % 6 {
                case 0...2:
                    next += 1
                    queue.append("\(requester.connection).\(next)", from: requester)
                    model[requester, default: []].append("\(requester.connection).\(next)")
                case 3:
                    #expect(queue.removeAll(from: requester) == (model[requester] ?? []))
                    model[requester] = nil
                default:
                    guard let popped = queue.popFirst() else {
                        #expect(model.values.allSatisfy { $0.isEmpty })
                        continue
                    }
                    let owner = try! #require(model.first { $0.value.first == popped }?.key, "\(popped) was the oldest of its lane")
                    model[owner]?.removeFirst()
                }
                #expect(queue.count == model.values.map(\.count).reduce(0, +))
            }
            // Fairness: while a user has work, every other user's work comes out at most once between two of its own.
            var othersSinceOwnTurn: [UInt32?: [UInt32?: Int]] = [:]
            while let popped = queue.popFirst() {
                let owner = try! #require(model.first { $0.value.first == popped }?.key)
                let waiting = Set(model.filter { !$0.value.isEmpty }.keys.map(\.user)).subtracting([owner.user])
                model[owner]?.removeFirst()
                for user in waiting {
                    othersSinceOwnTurn[user, default: [:]][owner.user, default: 0] += 1
                    #expect(othersSinceOwnTurn[user]?[owner.user] ?? 0 <= 1, "uid \(String(describing: user)) waited two turns of another")
                }
                othersSinceOwnTurn[owner.user] = [:]
            }
        }
    }
}
