import DepotClient
import DepotCore
import DepotJSON
import DepotTestSupport
import DepotWire
import NIOCore
import Testing

@testable import DepotServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fan-out without event loops, fed states by hand, and subscriptions read as a client reads them: every
/// notification parsed and applied to a `CollectionMirror`.
struct FanoutScript {
    let encodings = EncodingRecorder()
    let fanout: StateFanout
    private(set) var seq = -1
    private(set) var items: [Item] = []
    /// The states published, by seq: status, and the items of the last success at or before it.
    private(set) var published: [(status: LoadingState.Status, items: [Item])] = []
    /// The frames published, by seq.
    private(set) var frames: [StateFrame] = []
    private var nextID = 0

    init() {
        fanout = StateFanout(eventLoops: [], epoch: "e1", limits: LiveLimits(ConnectionLimits(replayStates: 64)), encodingObserver: encodings)
        publish(.idle)
    }

    mutating func publish(_ state: LoadingState) {
        seq += 1
        if let collection = state.items { items = Array(collection.items) }
        published.append((state.status, items))
        fanout.stateDidChange(to: PublishedState(seq: seq, state: state))
        frames.append(fanout.current)
    }

    mutating func success(_ newItems: [Item], origin: Provenance.Origin = .source) throws {
        publish(.success(try ItemCollection(items: newItems), Provenance(origin: origin, fetchedAt: Date(timeIntervalSince1970: 1_800_000_000))))
    }

    mutating func newItem(_ text: String = "") -> Item {
        defer { nextID += 1 }
        return Self.item("\(nextID)", text)
    }

    static func item(_ id: String, _ text: String = "") -> Item {
        Item(id: id, json: Array(#"{"id":"\#(id)","text":"\#(text)"}"#.utf8))
    }

    /// One random step: a load that edits the list (sometimes reordering it), a removal, loading, a failure, a wipe.
    mutating func randomStep(using random: inout SplitMix64) throws {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3:
            var next: [Item] = []
            for item in items {
                switch Int.random(in: 0..<8, using: &random) {
                case 0: continue
                case 1: next.append(Self.item(item.id, "v\(Int.random(in: 0..<1000, using: &random))"))
                case 2: next += [newItem(), item]
                default: next.append(item)
                }
            }
            if items.isEmpty || Bool.random(using: &random) { next.append(newItem()) }
            if Int.random(in: 0..<8, using: &random) == 0 { next.shuffle(using: &random) }
            publish(.loading)
            try success(next)
        case 3..<6:
            guard let victim = items.randomElement(using: &random) else { return publish(.loading) }
            try success(items.filter { $0.id != victim.id }, origin: .memory)
        case 6, 7:
            publish(.loading)
        case 8:
            publish(.failure(StateError(.loadFailed, message: "down")))
        default:
            publish(.idle)
        }
    }
}

/// Writes a subscription's queued notifications as lines and applies them to `mirror`; returns the lines' params.
@discardableResult
func drain(_ subscription: inout Subscription, into mirror: inout CollectionMirror, count: Int = .max) throws -> [JSONValue] {
    var params: [JSONValue] = []
    var written = 0
    while written < count, let (prefix, state, delta) = subscription.nextNotification() {
        written += 1
        var line = prefix
        var stateBytes = state
        line.writeBuffer(&stateBytes)
        if var delta {
            line.writeBuffer(&delta)
        }
        var suffix = StateNotification.suffix
        line.writeBuffer(&suffix)
        let message = try JSONParser.parse(Array(line.readableBytesView.dropLast()))
        params.append(try #require(message["params"]))
        try mirror.apply(try #require(StateChange(notification: message)))
    }
    return params
}

/// Whether `mirror` holds what the script published at `seq`.
func holds(_ mirror: CollectionMirror, _ script: FanoutScript, at seq: Int) throws -> Bool {
    let expected = script.published[seq]
    guard mirror.state?.seq == seq, mirror.status == expected.status.rawValue else { return false }
    guard expected.status == .success else { return true }
    return mirror.items == (try expected.items.map { try $0.value })
}

/// Whether `mirror`, when it holds a success's items, holds those of the last success published at or before the state
/// it is at: coalescing skips no success a client would otherwise show during a later `loading`.
func holdsLastSuccess(_ mirror: CollectionMirror, _ script: FanoutScript) -> Bool {
    guard let seq = mirror.state?.seq, let held = mirror.successSeq else { return true }
    return script.published[...seq].lastIndex { $0.status == .success } == held
}

@Suite("Delta mode: what a subscriber holds after every notification equals the daemon's state")
struct DeltaSubscriptionTests {
    @Test("a removal is one id on the wire, with count; the collection is not encoded for it")
    func removalIsOneID() throws {
        var script = FanoutScript()
        try script.success((0..<1000).map { FanoutScript.item("\($0)", String(repeating: "x", count: 100)) })
        var subscription = Subscription(id: "s1", mode: .delta)
        subscription.start(from: script.fanout.current, resync: false)
        var mirror = CollectionMirror()
        try drain(&subscription, into: &mirror)
        let encodingsBefore = script.encodings.encodingCount
        try script.success(script.items.filter { $0.id != "500" }, origin: .memory)
        subscription.enqueue(script.fanout.current, limit: 8)
        #expect(subscription.queuedBytes < 400, "one id and the state's short members: \(subscription.queuedBytes) bytes")
        let params = try drain(&subscription, into: &mirror)
        #expect(params.first?["delta"]?["removed"] == ["500"])
        #expect(params.first?["state"]?["count"] == 999)
        #expect(params.first?["state"]?["items"] == nil)
        #expect(try holds(mirror, script, at: script.seq))
        #expect(script.encodings.encodingCount == encodingsBefore, "nobody needed the snapshot, so it was not encoded")
    }

    @Test(
        "random loads, removals, failures and wipes, read at random moments through small queues: the mirror equals the state",
        arguments: [SubscriptionMode.delta, .snapshot], [UInt64(1), 2, 3, 4])
    func randomHistory(mode: SubscriptionMode, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var script = FanoutScript()
        var subscription = Subscription(id: "s1", mode: mode)
        subscription.start(from: script.fanout.current, resync: false)
        var mirror = CollectionMirror()
        for _ in 0..<300 {
            try script.randomStep(using: &random)
            let byteLimit = Int.random(in: 100...3000, using: &random)
            subscription.enqueue(script.fanout.current, limit: Int.random(in: 1...4, using: &random), byteLimit: byteLimit)
            try drain(&subscription, into: &mirror, count: Int.random(in: 0...2, using: &random))
            if !subscription.hasQueuedStates {
                #expect(try holds(mirror, script, at: script.seq), "after seq \(script.seq)")
            }
        }
        try drain(&subscription, into: &mirror)
        #expect(try holds(mirror, script, at: script.seq))
    }

    @Test("resuming after any state the ring holds replays exactly the states since, and the mirror ends equal")
    func resumeFromEverywhere() throws {
        var random = SplitMix64(seed: 99)
        var script = FanoutScript()
        // A reader that keeps up records what a client holds after each state.
        var reader = Subscription(id: "r", mode: .delta)
        reader.start(from: script.fanout.current, resync: false)
        var mirror = CollectionMirror()
        try drain(&reader, into: &mirror)
        var heldAt = [mirror]
        var snapshotReader = Subscription(id: "q", mode: .snapshot)
        while script.seq < 40 {
            try script.randomStep(using: &random)
            for frame in script.frames[heldAt.count...] {
                // A snapshot-mode subscriber too: the snapshots it needs are what the ring keeps for snapshot resumes.
                snapshotReader.enqueue(frame, limit: 1 << 20)
                reader.enqueue(frame, limit: 1 << 20)
                try drain(&reader, into: &mirror)
                heldAt.append(mirror)
            }
        }
        for mode in [SubscriptionMode.delta, .snapshot] {
            for since in 0...script.seq {
                let resumption = script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: since))
                let replay = try #require(resumption.replay, "the ring (64 states) holds everything after \(since)")
                var subscription = Subscription(id: "s", mode: mode)
                let resumed = subscription.resume(
                    after: since, heldSuccess: resumption.heldSuccess, replay: replay, current: resumption.current, limit: 1 << 20,
                    byteLimit: 1 << 30)
                var resumedMirror = heldAt[since]
                #expect(resumed, "\(mode) from \(since)")
                let params = try drain(&subscription, into: &resumedMirror)
                #expect(params.compactMap { $0["state"]?["seq"]?.numberValue?.intValue } == Array((since + 1)..<(script.seq + 1)))
                #expect(params.allSatisfy { $0["skipped"] == nil && $0["resync"] == nil })
                #expect(try holds(resumedMirror, script, at: script.seq), "\(mode) from \(since)")
            }
        }
    }

    @Test(
        "a client cut and resumed again and again, each time lagging at once (its replay coalesced or trimmed before it is written), ends equal",
        arguments: [SubscriptionMode.delta, .snapshot], Array(UInt64(1)...64))
    func resumeThenLag(mode: SubscriptionMode, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var script = FanoutScript()
        var subscription = Subscription(id: "s", mode: mode)
        subscription.start(from: script.fanout.current, resync: false)
        // What the client holds, and the seq of the last state it was sent: where it resumes from.
        var mirror = CollectionMirror()
        try drain(&subscription, into: &mirror)
        for round in 0..<60 {
            // The client reads slowly while states come, through bounds the replay may already exceed; then its
            // connection is cut, whatever it had not read yet lost.
            var enqueued = script.seq
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    try script.randomStep(using: &random)
                }
                // Handed over together, as a connection that waited for an encoding is: only those worth queueing.
                let limit = Int.random(in: 1...3, using: &random)
                let handed = SubscriptionSet.worthQueueing(Array(script.frames[(enqueued + 1)...]), limit: limit, keepingSuccesses: mode == .delta)
                for frame in handed {
                    subscription.enqueue(frame, limit: limit, byteLimit: Int.random(in: 100...3000, using: &random))
                }
                enqueued = script.seq
                try drain(&subscription, into: &mirror, count: Int.random(in: 0...1, using: &random))
                // In delta mode (snapshot mode drops its oldest states, successes or not).
                let holdsLast = mode == .snapshot || holdsLastSuccess(mirror, script)
                #expect(holdsLast, "\(mode), round \(round): at seq \(mirror.state?.seq ?? -1), holding seq \(mirror.successSeq ?? -1)")
            }
            if Bool.random(using: &random) {
                try drain(&subscription, into: &mirror)
                #expect(try holds(mirror, script, at: script.seq), "\(mode), round \(round)")
            }
            subscription = Subscription(id: "s\(round)", mode: mode)
            // Sometimes another client subscribes afresh instead, from whatever state is current: `loading` after a
            // success, say, with nothing held yet. So does one that was sent nothing before its cut.
            guard let since = mirror.state?.seq, Int.random(in: 0..<4, using: &random) > 0 else {
                mirror = CollectionMirror()
                subscription.start(from: script.fanout.current, resync: false)
                continue
            }
            let resumption = script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: since))
            // A resume the ring (64 states) cannot serve starts afresh, the client told to resync.
            let resumed =
                resumption.replay.map {
                    subscription.resume(
                        after: since, heldSuccess: resumption.heldSuccess, replay: $0, current: resumption.current, limit: 64, byteLimit: 1 << 30)
                } ?? false
            if !resumed {
                subscription.start(from: resumption.current, resync: true)
            }
        }
        try drain(&subscription, into: &mirror)
        #expect(try holds(mirror, script, at: script.seq))
    }

    @Test(
        "a client that subscribed during a load holds no success: resumed after that `loading`, its next success comes in full",
        arguments: [false, true])
    func resumeAfterStartingAtLoading(sinceIsCurrent: Bool) throws {
        var script = FanoutScript()
        try script.success((0..<50).map { FanoutScript.item("\($0)", String(repeating: "x", count: 40)) })
        script.publish(.loading)
        var subscription = Subscription(id: "s", mode: .delta)
        subscription.start(from: script.fanout.current, resync: false)
        var mirror = CollectionMirror()
        try drain(&subscription, into: &mirror)
        let since = script.seq
        if !sinceIsCurrent {
            try script.success(script.items.filter { $0.id != "7" }, origin: .memory)
        }
        let resumption = script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: since))
        var resumed = Subscription(id: "r", mode: .delta)
        #expect(
            resumed.resume(
                after: since, heldSuccess: resumption.heldSuccess, replay: try #require(resumption.replay), current: resumption.current,
                limit: 8, byteLimit: 1 << 20))
        var successes = try drain(&resumed, into: &mirror)
        try script.success(script.items.filter { $0.id != "8" }, origin: .memory)
        resumed.enqueue(script.fanout.current, limit: 8)
        successes += try drain(&resumed, into: &mirror)
        successes.removeAll { $0["state"]?["status"] != "success" }
        #expect(successes.count == (sinceIsCurrent ? 1 : 2))
        #expect(successes.first?["state"]?["items"] != nil, "the first success in full")
        #expect(successes.dropFirst().allSatisfy { $0["delta"] != nil }, "deltas after it")
        #expect(try holds(mirror, script, at: script.seq))
    }

    @Test("the ring keeps a large success state only as its delta, even once its snapshot was encoded; small ones in full")
    func snapshotResumeNeedsSnapshots() throws {
        var script = FanoutScript()
        let large = String(repeating: "x", count: ReplayRing.eagerEncodingLimit)
        let (a, b, c) = (FanoutScript.item("a", large), FanoutScript.item("b", large), FanoutScript.item("c", large))
        try script.success([a])
        _ = script.fanout.current.snapshot
        try script.success([a, b])
        _ = script.fanout.current.snapshot
        try script.success([a, b, c])
        let resumption = script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 1))
        let replay = try #require(resumption.replay)
        var snapshot = Subscription(id: "s", mode: .snapshot)
        let snapshotResumed = snapshot.resume(after: 1, heldSuccess: 1, replay: replay, current: resumption.current, limit: 8, byteLimit: 1 << 20)
        #expect(!snapshotResumed)
        var delta = Subscription(id: "d", mode: .delta)
        let deltaResumed = delta.resume(after: 1, heldSuccess: 1, replay: replay, current: resumption.current, limit: 8, byteLimit: 1 << 20)
        #expect(deltaResumed)
    }

    @Test("another epoch, a seq ahead of the current one, or one the ring no longer holds cannot resume")
    func cannotResume() throws {
        var script = FanoutScript()
        for index in 0..<100 {
            try script.success([FanoutScript.item("\(index)")])
        }
        #expect(script.fanout.resumption(after: ResumePoint(epoch: "e0", seq: 50)).replay == nil)
        #expect(script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 101)).replay == nil)
        #expect(script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 10)).replay == nil, "the ring holds 64 states")
        #expect(script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 40)).replay?.count == 59)
        #expect(script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 100)).replay?.isEmpty == true)
        #expect(script.fanout.replayRingSize.states == 64)

        // A resume that would overflow the subscriber's queue starts again instead.
        let resumption = script.fanout.resumption(after: ResumePoint(epoch: "e1", seq: 40))
        var subscription = Subscription(id: "s", mode: .delta)
        let resumed = subscription.resume(
            after: 40, heldSuccess: resumption.heldSuccess, replay: try #require(resumption.replay), current: resumption.current, limit: 8,
            byteLimit: 1 << 20)
        #expect(!resumed)
        #expect(!subscription.hasQueuedStates)
    }
}
