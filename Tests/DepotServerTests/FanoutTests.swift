import DepotClient
import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@testable import DepotServer

@Suite("Server: every state to every subscriber")
struct FanoutTests {
    @Test("four subscribers on their own connections see the same states, in seq order, through load, remove and wipe")
    func subscribersSeeTheSameSequence() async throws {
        try await withServer { server in
            var subscriptions: [DepotSubscription] = []
            var connections: [DepotConnection] = []
            for _ in 0..<4 {
                let connection = try await server.connect()
                connections.append(connection)
                subscriptions.append(try await connection.subscribe())
            }
            let control = try await server.connect()
            _ = try await control.call("load")
            _ = try await control.call("remove", params: ["id": "2"])
            _ = try await control.call("wipe")

            var sequences: [[StateChange]] = []
            for subscription in subscriptions {
                sequences.append(try await subscription.collect(untilSeq: 5))
            }
            let expectedStatuses = ["idle", "loading", "success", "loading", "success", "idle"]
            for sequence in sequences {
                #expect(sequence.map(\.seq) == [0, 1, 2, 3, 4, 5])
                #expect(sequence.map(\.status) == expectedStatuses)
                #expect(sequence.allSatisfy { $0.skipped == 0 })
                #expect(sequence.map(\.state) == sequences[0].map(\.state), "every subscriber receives the same states")
            }
            let items = sequences[0][4].state["items"]?.arrayValue?.compactMap { $0["id"]?.numberValue?.intValue }
            #expect(items == [1, 3])
        }
    }

    @Test("states published back to back, while subscribers join, reach every subscriber in seq order without a gap")
    func burstWhileSubscribersJoin() async throws {
        try await withServer { server in
            var early: [DepotSubscription] = []
            for _ in 0..<24 {
                early.append(try await server.connect().subscribe())
            }
            // Each wipe publishes one state at once, so states are posted to the event loops while they are
            // still handing earlier ones to the subscribers: the coalescing path of the fan-out.
            let bursts = 4
            let perBurst = 100
            var late: [DepotSubscription] = []
            for _ in 0..<bursts {
                for _ in 0..<perBurst {
                    _ = await server.repository.wipe().result
                }
                for _ in 0..<4 {
                    late.append(try await server.connect().subscribe())
                }
            }
            let lastSeq = server.repository.current.seq
            #expect(lastSeq == bursts * perBurst)

            for subscription in early + late {
                // A subscription starts once its answer is written, with the state current then; that can be
                // after the first wipes, so where a sequence starts is not checked, only that nothing is lost.
                let changes = try await subscription.collect(untilSeq: lastSeq)
                #expect(changes.first?.skipped == 0, "a subscription starts with the current state")
                #expect(changes.last?.seq == lastSeq, "every subscriber ends on the newest state")
                for (previous, change) in zip(changes, changes.dropFirst()) {
                    #expect(change.seq == previous.seq.map { $0 + 1 + change.skipped }, "a state is missing, or skipped does not account for it")
                }
            }
        }
    }

    @Test("a connection subscribing on a loop where no other subscribes, while states are published, misses none of them")
    func subscribeOnIdleLoopWhilePublishing() async throws {
        // States are posted only to loops with subscribing connections. Connections come one at a time and close
        // after their states, and each lands on the next loop, where no connection subscribes: its group goes from
        // none to one while a burst of wipes publishes, the moment a state could fall between its first read and the
        // posts. A burst is shorter than a subscriber's queue, so a state it did not get was not posted to it (not
        // dropped because it lagged): none may be skipped.
        let burst = 64
        #expect(burst < ConnectionLimits.defaultSubscriberQueueLimit)
        try await withServer { server in
            for _ in 0..<32 {
                let connection = try await server.connect()
                async let wiped: Void = {
                    for _ in 0..<burst { _ = await server.repository.wipe().result }
                }()
                let subscription = try await connection.subscribe()
                await wiped
                let lastSeq = server.repository.current.seq
                let changes = try await subscription.collect(untilSeq: lastSeq)
                #expect(changes.first?.skipped == 0, "a subscription starts with the current state")
                for (previous, change) in zip(changes, changes.dropFirst()) {
                    #expect(change.seq == previous.seq.map { $0 + 1 }, "state \((previous.seq ?? 0) + 1) did not reach the subscriber")
                    #expect(change.skipped == 0)
                }
                // Unsubscribed first: no state is on its way when the connection closes.
                #expect(try await connection.unsubscribe(subscription.id))
                await connection.close()
            }
        }
    }

    @Test("the subscribe answer comes first, then a notification with the state current at that moment")
    func answerThenCurrentState() async throws {
        try await withServer { server in
            _ = try await server.repository.load().result.get()
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(#"{"jsonrpc":"2.0","id":7,"method":"subscribe"}"#)
            let answer = try await connection.nextMessage(&lines)
            let subscription = try #require(answer["result"]?["subscription"]?.stringValue)
            #expect(answer["id"] == 7)
            let notification = try await connection.nextMessage(&lines)
            #expect(notification["method"] == "stateChanged")
            #expect(notification["params"]?["subscription"]?.stringValue == subscription)
            #expect(notification["params"]?["state"]?["seq"] == 2)
            #expect(notification["params"]?["state"]?["status"] == "success")
            #expect(notification["params"]?["skipped"] == nil)
        }
    }

    @Test("in a batch, the subscription starts at the state its answer names, and its notifications follow the batch's answer")
    func subscribeInBatch() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(#"[{"jsonrpc":"2.0","id":1,"method":"subscribe"},{"jsonrpc":"2.0","id":2,"method":"load"}]"#)
            let answers = try #require(try await connection.nextMessage(&lines).arrayValue)
            #expect(answers.map { $0["id"] } == [1, 2])
            #expect(answers[0]["result"]?["seq"] == 0, "subscribed before the load ran")
            #expect(answers[1]["result"]?["seq"] == 2)
            var seqs: [Int] = []
            while seqs.last != 2 {
                let notification = try await connection.nextMessage(&lines)
                #expect(notification["method"] == "stateChanged")
                seqs.append(try #require(notification["params"]?["state"]?["seq"]?.numberValue?.intValue))
            }
            #expect(seqs == [0, 1, 2], "the state its answer named first, then every later one, none skipped")
        }
    }

    @Test("one connection may hold several subscriptions; unsubscribe ends one; unknown ids answer false")
    func severalSubscriptionsPerConnection() async throws {
        try await withServer { server in
            let connection = try await server.connect()
            let first = try await connection.subscribe()
            let second = try await connection.subscribe()
            #expect(first.id != second.id)
            #expect(try await connection.unsubscribe(first.id) == true)
            #expect(try await connection.unsubscribe(first.id) == false)
            #expect(try await connection.unsubscribe("no-such-subscription") == false)

            let other = try await server.connect()
            #expect(try await other.unsubscribe(second.id) == false, "a connection cannot end another connection's subscription")

            _ = try await connection.call("wipe")
            let changes = try await second.collect(untilSeq: 1)
            #expect(changes.map(\.seq) == [0, 1])
            var firstChanges: [StateChange] = []
            for await change in first {
                firstChanges.append(change)
            }
            #expect(firstChanges.map(\.seq) == [0], "an ended subscription receives nothing more and its sequence finishes")
        }
    }

    @Test("a connection holds at most the configured number of subscriptions")
    func subscriptionLimit() async throws {
        try await withServer(limits: ConnectionLimits(maxSubscriptions: 2)) { server in
            let connection = try await server.connect()
            _ = try await connection.subscribe()
            _ = try await connection.subscribe()
            await #expect {
                try await connection.subscribe()
            } throws: { error in
                guard case .remote(let remote) = error as? DepotClientError else { return false }
                return remote.code == -32004 && remote.message.contains("2 subscriptions")
            }
        }
    }
}

@Suite("Server: encoding")
struct EncodingTests {
    @Test("each published state is encoded once, however many subscribers and readers receive it")
    func encodedOnce() async throws {
        try await withServer { server in
            var subscribers: [LineConnection] = []
            for _ in 0..<50 {
                let connection = try await server.connectLines()
                try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
                subscribers.append(connection)
            }
            let before = server.encodings.encodingCount
            let control = try await server.connect()
            _ = try await control.call("load")
            for _ in 0..<10 {
                _ = try await control.call("state")
            }
            for connection in subscribers {
                let seen = try await NotificationLine.collect(connection.lines, untilSeq: 2)
                #expect(seen.seqs.last == 2)
            }
            #expect(server.encodings.encodingCount - before == 2, "loading and success, each encoded once")
        }
    }

    /// `count` connections, each subscribed in the mode `mode` gives for its index.
    static func subscribers(_ count: Int, on server: RunningServer, mode: (Int) -> String) async throws -> [LineConnection] {
        var subscribers: [LineConnection] = []
        for index in 0..<count {
            let connection = try await server.connectLines()
            try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"\#(mode(index))"}}"#)
            subscribers.append(connection)
        }
        return subscribers
    }

    @Test("a large state's items are encoded once, off the event loops, for its snapshot- and delta-mode subscribers")
    func largeStatesEncodedOffLoops() async throws {
        try await withServer(source: TestSource(count: 5_000)) { server in
            let subscribers = try await Self.subscribers(12, on: server) { $0.isMultiple(of: 2) ? "snapshot" : "delta" }
            // Each subscriber has the idle state before the count starts.
            let control = try await server.connect()
            let idle = try await control.call("state")["seq"]?.numberValue?.intValue ?? -1
            for connection in subscribers {
                _ = try await NotificationLine.collect(connection.lines, untilSeq: idle)
            }
            let before = server.encodings.largeEncodingCounts.all
            _ = try await control.call("load")
            // The load's success has no delta: snapshot mode needs its snapshot, delta mode its items with `count`.
            // The removal's has one: only snapshot mode needs it in full.
            // Its answer names the removal's success (after its loading): the count is read once every subscriber has it.
            let removed = try await control.call("remove", params: ["id": "2"])["seq"]?.numberValue?.intValue ?? -1
            for connection in subscribers {
                let seen = try await NotificationLine.collect(connection.lines, untilSeq: removed)
                #expect(seen.seqs.last == removed)
            }
            let large = server.encodings.largeEncodingCounts
            #expect(large.all - before == 3, "the load's two full forms and the removal's snapshot, each once")
            #expect(large.onEventLoops == 0)
        }
    }

    @Test("a delta-mode subscriber gets each state at once while a large one is encoded for snapshot-mode subscribers on its loop")
    func deltaReadersNotHeldBehindEncodings() async throws {
        try await withServer(source: TestSource(count: 5_000)) { server in
            // Two snapshot-mode, then two delta-mode connections, again and again: the loops take connections in turn,
            // so each loop has some of both.
            let subscribers = try await Self.subscribers(16, on: server) { $0 % 4 < 2 ? "snapshot" : "delta" }
            let (snapshots, deltas) = (
                subscribers.enumerated().filter { $0.offset % 4 < 2 }.map(\.element),
                subscribers.enumerated().filter { $0.offset % 4 >= 2 }.map(\.element)
            )
            let control = try await server.connect()
            let loaded = try await control.call("load")["seq"]?.numberValue?.intValue ?? -1
            for connection in subscribers {
                _ = try await NotificationLine.collect(connection.lines, untilSeq: loaded)
            }
            let gate = server.encodings
            gate.close()
            defer { gate.open() }
            // Each removal's state goes to delta mode as a delta; snapshot mode needs its snapshot, which the gate holds.
            let first = try await control.call("remove", params: ["id": "2"])["seq"]?.numberValue?.intValue ?? -1
            let second = try await control.call("remove", params: ["id": "3"])["seq"]?.numberValue?.intValue ?? -1
            for connection in deltas {
                let seen = try await withTimeout(.seconds(20), "a delta-mode subscriber to get seq \(second) while the encoding waits") {
                    try await NotificationLine.collect(connection.lines, untilSeq: second)
                }
                #expect(seen.seqs.contains(first) && seen.seqs.last == second)
            }
            #expect(gate.waiting > 0, "an encoding was still held back when the delta-mode subscribers had both states")
            gate.open()
            for connection in snapshots {
                let seen = try await NotificationLine.collect(connection.lines, untilSeq: second)
                #expect(seen.seqs.contains(first) && seen.seqs.last == second && seen.skipped == 0)
            }
            #expect(server.encodings.largeEncodingCounts.onEventLoops == 0)
        }
    }

    @Test(
        "a new subscription to a large state gets it first, encoded off the event loops: snapshot and delta mode, a resync and a pipeline alike; the answer does not wait for it"
    )
    func firstLargeStateEncodedOffLoops() async throws {
        try await withServer(source: TestSource(count: 5_000)) { server in
            let control = try await server.connect()
            let loaded = try await control.call("load")["seq"]?.numberValue?.intValue ?? -1
            let before = server.encodings.largeEncodingCounts.all
            let gate = server.encodings
            gate.close()
            defer { gate.open() }
            let subscriptions = [
                #"{"mode":"snapshot"}"#, #"{"mode":"delta"}"#, #"{"mode":"snapshot"}"#, #"{"mode":"delta"}"#,
                #"{"mode":"delta","since":{"epoch":"another run","seq":1}}"#,
                #"{"mode":"snapshot","pipeline":[{"op":"sort","by":"/id","order":"desc"}]}"#,
            ]
            var subscribers: [LineConnection] = []
            for params in subscriptions {
                let connection = try await server.connectLines()
                try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":\#(params)}"#)
                // The answer comes while the first state's encoding is held back.
                let answer = try await withTimeout(.seconds(20), "the answer to subscribe \(params)") {
                    try await connection.lines.first { _ in true }
                }
                #expect(answer.map { String(decoding: $0, as: UTF8.self).contains(#""seq":\#(loaded)"#) } == true)
                subscribers.append(connection)
            }
            #expect(gate.waiting > 0, "the first states' encoding was held back")
            // States published meanwhile (the removal's loading and success) reach each subscriber after its first.
            let removal = try await control.call("remove", params: ["id": "2"])["seq"]?.numberValue?.intValue ?? -1
            gate.open()
            for connection in subscribers {
                let seen = try await withTimeout(.seconds(20), "the first state and the removal") {
                    try await NotificationLine.collect(connection.lines, untilSeq: removal)
                }
                #expect(seen.seqs == Array(loaded...removal) && seen.skipped == 0, "\(seen), loaded \(loaded)")
            }
            let large = server.encodings.largeEncodingCounts
            #expect(large.onEventLoops == 0)
            #expect(large.all > before)
        }
    }

    @Test(
        "a snapshot-mode subscriber whose socket is full has no large state encoded for it until it reads again, then the newest its queue keeps"
    )
    func stalledSubscriberCostsNoEncodings() async throws {
        // About 600 KiB a state, against a queue byte bound of 64 KiB: the queue keeps only the newest.
        let limits = ConnectionLimits(subscriberQueueBytes: 64 * 1024)
        try await withServer(source: TestSource(count: 20_000), limits: limits) { server in
            let control = try await server.connect()
            let loaded = try await control.call("load")["seq"]?.numberValue?.intValue ?? -1
            // `state` has the loaded state's snapshot encoded: the subscription below starts from it as it is.
            _ = try await control.call("state")
            let stalled = try server.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"snapshot"}}"# + "\n")
            #expect(try await stalled.readMessage()["id"] == 1)
            // Its first state fills the socket's buffers and more: from here on it reads nothing for a while.
            let reader = try await server.connectLines()
            try await reader.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"delta"}}"#)
            _ = try await NotificationLine.collect(reader.lines, untilSeq: loaded)
            let before = server.encodings.largeEncodingCounts.all
            var last = loaded
            for id in 1...10 {
                last = try await control.call("remove", params: ["id": .string(String(id))])["seq"]?.numberValue?.intValue ?? -1
            }
            let final = last
            let seen = try await NotificationLine.collect(reader.lines, untilSeq: final)
            #expect(seen.seqs == Array((loaded + 1)...final), "the delta-mode reader beside it got every state")
            #expect(server.encodings.largeEncodingCounts.all == before, "no state was encoded while the stalled socket was full")
            #expect(try await control.call("stats")["parkedConnections"]?.numberValue?.intValue == 1, "parked: the group's passes skip it")

            // Now it reads: the rest of its first state, what was queued before its socket filled (small states), and
            // the newest, each saying how many it skipped.
            var seqs: [Int] = []
            var newest: JSONValue?
            while seqs.last != final {
                let params = try #require(try await stalled.readMessage()["params"])
                let seq = try #require(params["state"]?["seq"]?.numberValue?.intValue)
                let skipped = params["skipped"]?.numberValue?.intValue ?? 0
                if let previous = seqs.last { #expect(skipped == seq - previous - 1, "skipped says how many it missed") }
                seqs.append(seq)
                newest = params
            }
            #expect(seqs.first == loaded && seqs == seqs.sorted() && seqs.count < final - loaded, "\(seqs)")
            #expect(newest?["state"]?["items"]?.arrayValue?.count == 20_000 - 10)
            #expect(server.encodings.largeEncodingCounts.all - before == 1, "the newest state only, once it could be written")
            #expect(server.encodings.largeEncodingCounts.onEventLoops == 0)
            #expect(try await control.call("stats")["parkedConnections"]?.numberValue?.intValue == 0, "unparked once it read")
        }
    }

    @Test("snapshot-mode subscribers that read get every large state, though their queue's byte bound holds only one")
    func readingSnapshotSubscribersMissNothing() async throws {
        // About 600 KiB a state, against a queue byte bound of 64 KiB: a state found unwritten when the next comes is
        // dropped, so each must reach the socket before the next is published.
        let limits = ConnectionLimits(subscriberQueueBytes: 64 * 1024)
        try await withServer(source: TestSource(count: 20_000), limits: limits) { server in
            let control = try await server.connect()
            let loaded = try await control.call("load")["seq"]?.numberValue?.intValue ?? -1
            let subscribers = try await Self.subscribers(8, on: server) { _ in "snapshot" }
            for connection in subscribers {
                _ = try await NotificationLine.collect(connection.lines, untilSeq: loaded)
            }
            for id in 1...6 {
                // Each optimistic removal publishes two states, the second once the source confirms it; the next removal
                // waits until every subscriber has both.
                let confirmed =
                    try await control.call("remove", params: ["id": .string(String(id)), "optimistic": true])["seq"]?.numberValue?.intValue ?? -1
                for connection in subscribers {
                    let seen = try await withTimeout(.seconds(60), "seq \(confirmed)") {
                        try await NotificationLine.collect(connection.lines, untilSeq: confirmed)
                    }
                    #expect(seen.seqs == [confirmed - 1, confirmed] && seen.skipped == 0, "\(seen)")
                }
            }
        }
    }

    @Test("while large states follow each other fast, every subscriber on every loop receives each of them, in order")
    func largeStatesInQuickSuccession() async throws {
        // States just over `StateFrame.inlineEncodingLimit` items, so each is encoded off the loops. Every line a
        // subscriber reads is parsed and checked against the protocol's schema by the test's client, which in a debug
        // build costs far more than depotd's work: 16 subscribers of 2,000-item states took 64 s of the suite's run
        // (CI timed out once); 8 of 1,200 items keep what is tested at a sixth of the cost.
        try await withServer(source: TestSource(count: StateFrame.inlineEncodingLimit + 200)) { server in
            let subscribers = try await Self.subscribers(8, on: server) { $0 % 4 == 0 ? "delta" : "snapshot" }
            let control = try await server.connect()
            _ = try await control.call("load")
            var last = 0
            for id in 1...30 {
                // Each optimistic removal publishes two large states, one right after the other.
                last = try await control.call("remove", params: ["id": .string(String(id)), "optimistic": true])["seq"]?.numberValue?.intValue ?? 0
            }
            let final = last
            for connection in subscribers {
                let seen = try await withTimeout(.seconds(60), "every state up to \(final)") {
                    try await NotificationLine.collect(connection.lines, untilSeq: final)
                }
                #expect(seen.seqs == seen.seqs.sorted() && Set(seen.seqs).count == seen.seqs.count, "in order, none twice")
            }
            #expect(server.encodings.largeEncodingCounts.onEventLoops == 0)
        }
    }
}
