import DepotClient
import DepotCore
import DepotJSON
import DepotServer
import DepotTestSupport
import Testing

@Suite("Server: a slow subscriber")
struct SlowSubscriberTests {
    /// About 64 KiB per success state, so a stalled reader's socket buffers fill after a few states.
    static func bulkySource() -> TestSource {
        let padding = String(repeating: "x", count: 1000)
        return TestSource(items: (1...64).map { ["id": .number(JSONNumber($0)), "padding": .string(padding)] })
    }

    @Test("a subscriber that does not read delays nobody; when it reads, it gets the newest state and how many it skipped")
    func stalledSubscriberSkips() async throws {
        let queueLimit = 16
        // Many exchanges (two calls a cycle, each cycle waiting for the reading subscriber): in the whole suite, beside
        // a dozen other tests on two cores, 100 cycles took past the 60 s every server test has (alone, under a second).
        let limits = ConnectionLimits(subscriberQueueLimit: queueLimit)
        try await withServer(source: Self.bulkySource(), limits: limits, timeout: .seconds(240)) { server in
            let stalled = try server.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
            #expect(try await stalled.readMessage()["id"] == 1)
            #expect(try await stalled.readMessage()["params"]?["state"]?["seq"] == 0)
            // From here on it reads nothing until every state has been published.

            // A subscriber that reads everything, looking only at the seq, so it keeps up easily.
            let reader = try await server.connectLines()
            try await reader.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
            let progress = SubscriberProgress(reader.lines)
            // Its subscription holds before anything changes (its first state is the current one, seq 0).
            await progress.wait(forSeq: 0)
            let control = try await server.connect()

            // 40 cycles of load (loading, success) and wipe (idle): 120 states, about 2.6 MiB of notifications
            // for each subscriber. Each cycle waits for the reading subscriber, so only the stalled one lags.
            let cycles = 40
            for _ in 0..<cycles {
                _ = try await control.call("load")
                let idle = try await control.call("wipe")["seq"]?.numberValue?.intValue ?? -1
                await progress.wait(forSeq: idle)
            }
            let lastSeq = 3 * cycles
            #expect(server.repository.current.seq == lastSeq, "every mutation finished while one subscriber read nothing")
            #expect(progress.seen.value == NotificationLine.Seen(seqs: Array(0...lastSeq)), "the reading subscriber missed nothing")

            // Now the stalled subscriber reads everything it has.
            var seqs: [Int] = [0]
            var skippedTotal = 0
            while seqs.last != lastSeq {
                let notification = try await stalled.readMessage()
                let params = try #require(notification["params"])
                let seq = try #require(params["state"]?["seq"]?.numberValue?.intValue)
                let skipped = params["skipped"]?.numberValue?.intValue ?? 0
                #expect(skipped == seq - seqs.last! - 1, "skipped says exactly how many states it missed")
                skippedTotal += skipped
                seqs.append(seq)
            }
            #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "states arrive in seq order, without repeats")
            #expect(seqs.last == lastSeq, "the newest state is always delivered")
            #expect(skippedTotal > 0, "a stalled subscriber's oldest states were dropped")
            #expect(seqs.count + skippedTotal == lastSeq + 1)
            // What it received: states already in the socket's buffers when it stalled, plus at most its queue.
            #expect(seqs.count < 60, "received \(seqs.count) of \(lastSeq + 1) states; its queue holds \(queueLimit)")
        }
    }

    @Test("with a queue of one, a lagging subscriber still ends on the newest state")
    func queueOfOne() async throws {
        try await withServer(source: Self.bulkySource(), limits: ConnectionLimits(subscriberQueueLimit: 1)) { server in
            let stalled = try server.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
            _ = try await stalled.readMessage()
            let control = try await server.connect()
            for _ in 0..<20 {
                _ = try await control.call("load")
            }
            var last = 0
            while last != 40 {
                last = try #require(try await stalled.readMessage()["params"]?["state"]?["seq"]?.numberValue?.intValue)
            }
            #expect(last == 40)
        }
    }

    @Test("the queue's byte bound holds a stalled subscriber to fewer states than its count bound would")
    func byteBound() async throws {
        // Success states are about 66 KiB: a bound of 200 KiB keeps at most three of them queued.
        let limits = ConnectionLimits(subscriberQueueLimit: 256, subscriberQueueBytes: 200 * 1024)
        try await withServer(source: Self.bulkySource(), limits: limits) { server in
            let stalled = try server.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
            _ = try await stalled.readMessage()
            _ = try await stalled.readMessage()
            let control = try await server.connect()
            let cycles = 60
            for _ in 0..<cycles {
                _ = try await control.call("load")
            }
            let lastSeq = 2 * cycles
            var received = 0
            var skippedTotal = 0
            var last = 0
            while last != lastSeq {
                let params = try #require(try await stalled.readMessage()["params"])
                last = try #require(params["state"]?["seq"]?.numberValue?.intValue)
                skippedTotal += params["skipped"]?.numberValue?.intValue ?? 0
                received += 1
            }
            #expect(received + skippedTotal == lastSeq, "every state after the first is received or counted as skipped")
            #expect(received < 40, "received \(received) of \(lastSeq): the socket's buffers, then at most about 200 KiB of queue")
        }
    }
}
