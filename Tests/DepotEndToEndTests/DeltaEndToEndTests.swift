import DepotClient
import DepotCore
import DepotJSON
import DepotOperators
import DepotTestSupport
import DepotWire
import Foundation
import Testing

/// A delta-mode subscriber that keeps a `CollectionMirror` of the repository, and what it has applied, for a
/// test to wait on.
final class MirroringSubscriber: Sendable {
    struct Progress: Sendable {
        var mirror = CollectionMirror()
        var changes: [StateChange] = []
        var problem: String?
        var seq: Int { mirror.state?.seq ?? -1 }
    }

    let progress = Condition(Progress())
    let subscribed: Subscribed

    /// Subscribes on `connection` and applies every notification as it comes, on a task that ends with the
    /// subscription.
    init(
        _ connection: DepotConnection, _ request: SubscribeRequest = SubscribeRequest(mode: .delta), initial: CollectionMirror = CollectionMirror()
    )
        async throws
    {
        let subscription = try await connection.subscribe(request)
        subscribed = subscription.subscribed
        progress.update { $0.mirror = initial }
        let progress = self.progress
        Task {
            for await change in subscription {
                progress.update { progress in
                    progress.changes.append(change)
                    do {
                        try progress.mirror.apply(change)
                    } catch {
                        progress.problem = progress.problem ?? "\(error)"
                    }
                }
            }
        }
    }

    /// Waits until the mirror holds `seq` (or a problem came up), and returns it.
    func mirror(atSeq seq: Int) async throws -> Progress {
        try await withTimeout(.seconds(60), "a subscriber to apply seq \(seq)") {
            await self.progress.wait { $0.seq >= seq || $0.problem != nil }
        }
    }
}

/// The items file of a test, rewritten between loads as a source would change.
struct ItemsFile {
    let path: String
    var items: [(id: Int, text: String)]
    var nextID: Int

    init(path: String, count: Int) {
        self.path = path
        self.items = (1...count).map { ($0, "item \($0)") }
        self.nextID = count + 1
    }

    func write() throws {
        let lines = items.map { #"{"id": \#($0.id), "text": "\#($0.text)"}"# }
        try Data(("[\n" + lines.joined(separator: ",\n") + "\n]\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Adds, changes, removes and (sometimes) reorders items.
    mutating func edit(using random: inout SplitMix64) {
        var next: [(id: Int, text: String)] = []
        for item in items {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: continue
            case 1: next.append((item.id, "changed \(Int.random(in: 0..<10_000, using: &random))"))
            case 2:
                next.append((nextID, "new \(nextID)"))
                nextID += 1
                next.append(item)
            default: next.append(item)
            }
        }
        next.append((nextID, "new \(nextID)"))
        nextID += 1
        if Int.random(in: 0..<6, using: &random) == 0 { next.shuffle(using: &random) }
        items = next
    }
}

@Suite("depotd: delta mode, resume and heartbeats, end to end", .timeLimit(.minutes(3)))
struct DeltaEndToEndTests {
    /// Random loads of a changing file, removals (kept, optimistic, refused and rolled back, of ids not there) and
    /// wipes; after each, every subscriber's mirror equals `state`.
    static func randomHistory(subscribers count: Int, steps: Int, seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let file = ItemsFile(path: directory.file("items.json"), count: 40)
        try file.write()
        try await withDaemon(["--source", "file:" + file.path, "--no-initial-load"], directory: directory) { [file] daemon in
            var file = file
            var random = SplitMix64(seed: seed)
            let control = try await daemon.connect()
            var subscribers: [MirroringSubscriber] = []
            for _ in 0..<count {
                subscribers.append(try await MirroringSubscriber(try await daemon.connect()))
            }
            for step in 0..<steps {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    file.edit(using: &random)
                    try file.write()
                    _ = try? await control.call(LoadRequest())
                case 4..<7:
                    if let victim = file.items.randomElement(using: &random) {
                        _ = try? await control.call(RemoveRequest(id: "\(victim.id)", optimistic: Bool.random(using: &random)))
                        file.items.removeAll { $0.id == victim.id }
                    }
                case 7:
                    // Refused: the file is read-only, so an optimistic removal is rolled back.
                    if let victim = file.items.randomElement(using: &random) {
                        chmod(file.path, 0o444)
                        _ = try? await control.call(RemoveRequest(id: "\(victim.id)", optimistic: true))
                        chmod(file.path, 0o644)
                    }
                case 8:
                    _ = try? await control.call(RemoveRequest(id: "no-such-id", optimistic: Bool.random(using: &random)))
                default:
                    _ = try await control.call(WipeRequest())
                }
                let state = try await control.call(StateRequest())
                for (index, subscriber) in subscribers.enumerated() {
                    let progress = try await subscriber.mirror(atSeq: state.seq)
                    #expect(progress.problem == nil, "subscriber \(index), step \(step): \(progress.problem ?? "")")
                    #expect(progress.seq == state.seq)
                    #expect(progress.mirror.status == state.status.rawValue, "subscriber \(index), step \(step)")
                    if let items = state.items {
                        #expect(progress.mirror.items == items, "subscriber \(index), step \(step): the mirror's items are the state's")
                    }
                }
            }
            // Deltas did the work: most success notifications carried a delta, not the items.
            let changes = subscribers[0].progress.value.changes
            let deltas = changes.filter { $0.delta != nil }.count
            let fullSuccesses = changes.filter { $0.status == "success" && $0.delta == nil }.count
            #expect(deltas > fullSuccesses, "\(deltas) deltas, \(fullSuccesses) success states in full")
        }
    }

    @Test("one subscriber: its mirror equals state after every load, removal, rollback and wipe")
    func oneSubscriber() async throws {
        try await Self.randomHistory(subscribers: 1, steps: 60, seed: 7)
    }

    @Test("50 concurrent subscribers: every mirror equals state after every step")
    func fiftySubscribers() async throws {
        try await Self.randomHistory(subscribers: 50, steps: 25, seed: 8)
    }

    @Test("resume: disconnect, mutate, resubscribe with since → resumed, exactly the missed states, in order")
    func resume() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(20, in: directory)
        try await withDaemon(["--source", source], directory: directory) { daemon in
            let control = try await daemon.connect()
            let loaded = try await control.call(LoadRequest())
            let first = try await daemon.connect()
            let subscriber = try await MirroringSubscriber(first)
            let held = try await subscriber.mirror(atSeq: loaded.seq).mirror
            await first.close()

            var missed: [Int] = []
            for id in [3, 7, 11] {
                missed.append(try await control.call(RemoveRequest(id: "\(id)", optimistic: true)).seq)
            }
            let current = try await control.call(StateRequest())
            let since = try #require(held.resumePoint)

            let again = try await MirroringSubscriber(
                try await daemon.connect(), SubscribeRequest(mode: .delta, since: since), initial: held)
            #expect(again.subscribed.resumed)
            #expect(again.subscribed.seq == current.seq)
            let progress = try await again.mirror(atSeq: current.seq)
            #expect(progress.problem == nil)
            #expect(progress.changes.compactMap(\.seq) == Array((since.seq + 1)...current.seq), "every missed state, in order")
            #expect(progress.changes.allSatisfy { !$0.resync && $0.skipped == 0 })
            #expect(progress.mirror.items == current.items)
            #expect(progress.changes.contains { $0.delta?["removed"] == ["11"] }, "the last removal came as one id")
            #expect(progress.changes.last?.delta?["removed"] == [], "the source's confirmation changed nothing: an empty delta")

            // Resuming from the current state replays nothing and waits for the next one.
            let caughtUp = try await MirroringSubscriber(
                try await daemon.connect(), SubscribeRequest(mode: .delta, since: ResumePoint(epoch: current.epoch, seq: current.seq)),
                initial: progress.mirror)
            #expect(caughtUp.subscribed.resumed)
            let next = try await control.call(RemoveRequest(id: "12", items: true))
            let afterNext = try await caughtUp.mirror(atSeq: next.seq)
            #expect(afterNext.problem == nil)
            #expect(afterNext.changes.first?.seq == current.seq + 1)
            #expect(afterNext.mirror.items == next.items)
        }
    }

    @Test(
        "since with another epoch, ahead of the current seq, or older than the ring → resumed false, the current state in full with resync",
        arguments: ["epoch", "ahead", "old"])
    func resync(_ case: String) async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(10, in: directory)
        try await withDaemon(["--source", source, "--replay-states", "2"], directory: directory) { daemon in
            let control = try await daemon.connect()
            var current = try await control.call(LoadRequest())
            for id in 1...5 {
                current = try await control.call(RemoveRequest(id: "\(id)", items: true))
            }
            let since =
                switch `case` {
                case "epoch": ResumePoint(epoch: "0000000000000000", seq: current.seq - 1)
                case "ahead": ResumePoint(epoch: current.epoch, seq: current.seq + 5)
                default: ResumePoint(epoch: current.epoch, seq: 1)
                }
            for mode in [SubscriptionMode.delta, .snapshot] {
                let subscriber = try await MirroringSubscriber(try await daemon.connect(), SubscribeRequest(mode: mode, since: since))
                #expect(!subscriber.subscribed.resumed)
                let progress = try await subscriber.mirror(atSeq: current.seq)
                #expect(progress.problem == nil)
                #expect(progress.changes.count == 1)
                #expect(progress.changes.first?.resync == true, "\(mode)")
                #expect(progress.changes.first?.delta == nil)
                #expect(progress.mirror.items == current.items)
            }
        }
    }

    @Test("a delta-mode subscriber that stops reading a large collection is coalesced: the others miss nothing, and once it reads it holds the state")
    func stalledDeltaSubscriber() async throws {
        let directory = TemporaryDirectory()
        // 5,000 items of about 200 bytes: a full state is about 1 MB, four times the queue's byte bound.
        let source = Daemon.writeItems(5000, in: directory, padding: 150)
        let arguments = ["--source", source, "--subscriber-queue-bytes", "262144", "--subscriber-queue", "16"]
        try await withDaemon(arguments, directory: directory) { daemon in
            let control = try await daemon.connect()
            _ = try await control.call(LoadRequest())
            let stalled = try daemon.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"delta"}}"# + "\n")
            let reader = try await MirroringSubscriber(try await daemon.connect())
            var current = try await control.call(StateRequest())
            for id in 1...24 {
                current = try await control.call(RemoveRequest(id: "\(id)", optimistic: id.isMultiple(of: 2), items: true))
                let progress = try await reader.mirror(atSeq: current.seq)
                #expect(progress.problem == nil)
                #expect(progress.mirror.items == current.items, "the reading subscriber is not held back (removal \(id))")
            }
            #expect(reader.progress.value.changes.allSatisfy { $0.skipped == 0 }, "the reader missed nothing")

            // The stalled subscriber reads at last: what it receives takes it to the current state.
            #expect(try await stalled.readMessage()["id"] == 1)
            var mirror = CollectionMirror()
            var skipped = 0
            while mirror.state?.seq != current.seq {
                let change = try #require(StateChange(notification: try await stalled.readMessage()))
                skipped += change.skipped
                try mirror.apply(change)
            }
            #expect(skipped > 0, "its unsent states were coalesced, and it was told how many it missed")
            #expect(mirror.items == current.items)
        }
    }

    @Test("heartbeats come after the idle interval, naming the seq to resume from, and stop when states flow")
    func heartbeats() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(3, in: directory)
        try await withDaemon(["--source", source], directory: directory) { daemon in
            let control = try await daemon.connect()
            let loaded = try await control.call(LoadRequest())
            let subscriber = try await MirroringSubscriber(try await daemon.connect(), SubscribeRequest(mode: .delta, heartbeat: 0.2))
            let beats = try await withTimeout(.seconds(30), "two heartbeats") {
                await subscriber.progress.wait { $0.changes.filter { $0.heartbeat != nil }.count >= 2 }
            }
            let heartbeat = try #require(beats.changes.last?.heartbeat)
            #expect(heartbeat.seq == loaded.seq)
            #expect(heartbeat.epoch == loaded.epoch)
            #expect(heartbeat.subscription == subscriber.subscribed.subscription)
            #expect(beats.changes.first?.heartbeat == nil, "the first notification is the state")
        }
    }
}
