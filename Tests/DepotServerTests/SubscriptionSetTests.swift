import DepotCore
import DepotWire
import NIOCore
import Testing

@testable import DepotServer

/// The connection's subscriptions as a value: what starts when, the order writing takes between them, ends, and
/// heartbeats — all without a channel.
@Suite("SubscriptionSet: start, turns, ends and heartbeats of a connection's subscriptions")
struct SubscriptionSetTests {
    static func frame(_ seq: Int) -> StateFrame {
        StateFrame(PublishedState(seq: seq, state: seq % 2 == 0 ? .idle : .loading), epoch: "e")
    }

    /// Every output of one pass, as "id:seq" for notifications (read from the prefix and state) and "end:id".
    static func pass(_ set: inout SubscriptionSet) -> [String] {
        var turn = 0
        var written: [String] = []
        while let output = set.next(turn: &turn) {
            switch output {
            case .notification(let prefix, let state, _, _):
                let id = String(buffer: prefix).split(separator: "\"").drop { $0 != "subscription" }.dropFirst(2).first ?? "?"
                let seq = String(buffer: state).split(separator: ",").first { $0.contains("\"seq\"") }?.split(separator: ":").last ?? "?"
                written.append("\(id):\(seq)")
            case .ended(let subscription, _):
                written.append("end:\(subscription.id)")
            }
        }
        return written
    }

    @Test("a subscription waits for its answer: it queues, and writes only once started")
    func startsAfterItsAnswer() {
        var set = SubscriptionSet()
        set.add(Subscription(id: "a"))
        set.enqueue([Self.frame(0), Self.frame(1)], limit: 16, byteLimit: 1 << 20)
        #expect(Self.pass(&set).isEmpty, "not started")
        #expect(!set.hasOutput)
        #expect(set.takeAwaitingAnswer() == ["a"])
        #expect(set.takeAwaitingAnswer().isEmpty, "handed over once")
        #expect(set.start(["a", "gone"]) == 1)
        #expect(set.activeCount == 1 && set.hasOutput)
        #expect(Self.pass(&set) == ["a:0", "a:1"])
    }

    @Test("each started subscription writes its queue in turn, in the order they were made")
    func turns() {
        var set = SubscriptionSet()
        for id in ["a", "b", "c"] { set.add(Subscription(id: id)) }
        #expect(set.start(set.takeAwaitingAnswer()) == 3)
        set.enqueue([Self.frame(0), Self.frame(1)], limit: 16, byteLimit: 1 << 20)
        #expect(Self.pass(&set) == ["a:0", "a:1", "b:0", "b:1", "c:0", "c:1"])
        #expect(Self.pass(&set).isEmpty)
    }

    @Test("an ended subscription writes what it queued, then its end, and leaves; endAll drops the queues first")
    func ends() throws {
        var set = SubscriptionSet()
        set.add(Subscription(id: "a"))
        set.add(Subscription(id: "b"))
        _ = set.start(set.takeAwaitingAnswer())
        set.enqueue([Self.frame(0)], limit: 16, byteLimit: 1 << 20)
        set.end(pipelineNumber: 0, reason: "deleted")
        #expect(Self.pass(&set) == ["a:0", "end:a", "b:0", "end:b"])
        #expect(set.isEmpty)

        set.add(Subscription(id: "c"))
        _ = set.start(set.takeAwaitingAnswer())
        set.enqueue([Self.frame(0), Self.frame(1)], limit: 16, byteLimit: 1 << 20)
        set.endAll(reason: "access revoked")
        #expect(Self.pass(&set) == ["end:c"], "nothing more it held is sent")
        #expect(set.remove(id: "c") == nil)
    }

    @Test("heartbeats: due after the interval since the last write, only for a started one with nothing waiting")
    func heartbeats() {
        var set = SubscriptionSet()
        var beating = Subscription(id: "a", heartbeat: .seconds(10))
        let start = NIODeadline.now()
        beating.lastSentAt = start
        set.add(beating)
        set.add(Subscription(id: "quiet"))
        #expect(set.nextHeartbeat == start + .seconds(10))
        #expect(set.dueHeartbeats(at: start + .seconds(11)).isEmpty, "not started: none owed, but it counts again")
        #expect(set.nextHeartbeat == start + .seconds(21))
        _ = set.start(set.takeAwaitingAnswer())
        set.enqueue([Self.frame(4)], limit: 16, byteLimit: 1 << 20)
        #expect(set.dueHeartbeats(at: start + .seconds(22)).isEmpty, "a state waits: the state will say more")
        _ = Self.pass(&set)
        let due = set.dueHeartbeats(at: start + .seconds(40))
        #expect(due.map(\.subscription) == ["a"] && due.map(\.seq) == [4])
    }

    @Test("statistics list the started ones; removeAll hands every subscription back")
    func statisticsAndRemoval() {
        var set = SubscriptionSet()
        set.add(Subscription(id: "a", mode: .delta))
        set.add(Subscription(id: "b"))
        _ = set.start(["b"])
        #expect(set.statistics(uid: 7).map(\.subscription) == ["b"])
        #expect(set.wantsSnapshots)
        #expect(set.removeAll().map(\.id) == ["a", "b"])
        #expect(set.isEmpty && !set.wantsSnapshots)
    }
}
