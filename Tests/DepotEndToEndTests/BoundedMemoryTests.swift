import DepotClient
import DepotJSON
import DepotTestSupport
import Testing

@Suite("depotd: a subscriber that never reads")
struct BoundedMemoryTests {
    @Test("does not delay the others, and the daemon's memory stays bounded")
    func stalledSubscriber() async throws {
        let directory = TemporaryDirectory()
        // 200 items of about 1 KiB: every success state is about 200 KiB on the wire.
        let source = Daemon.writeItems(200, in: directory, padding: 1000)
        try await withDaemon(
            ["--source", source, "--no-initial-load", "--subscriber-queue", "32", "--replay-bytes", "1048576"], directory: directory
        ) { daemon in
            let stalled = try daemon.rawSocket(receiveBufferBytes: 4096)
            try stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"# + "\n")
            #expect(try await stalled.readMessage()["id"] == 1)
            #expect(try await stalled.readMessage()["params"]?["state"]?["seq"] == 0)

            // Three subscribers that read everything (only the seq is looked at, so they keep up easily).
            var readers: [SubscriberProgress] = []
            for _ in 0..<3 {
                let reader = try await daemon.connectLines()
                try await reader.send(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)
                let progress = SubscriberProgress(reader.lines)
                // Its subscription holds before anything changes (its first state is the current one, seq 0): on a
                // loaded machine the first load could otherwise come first.
                await progress.wait(forSeq: 0)
                readers.append(progress)
            }
            let control = try await daemon.connect()
            /// Load and wipe `count` times; each cycle waits until the readers have its last state, so only the
            /// stalled subscriber ever falls behind.
            func cycle(_ count: Int) async throws {
                for _ in 0..<count {
                    _ = try await control.call("load")
                    let idle = try await control.call("wipe")["seq"]?.numberValue?.intValue ?? -1
                    for reader in readers {
                        await reader.wait(forSeq: idle)
                    }
                }
            }
            // Warm up, so the baseline includes the daemon's steady working set.
            try await cycle(10)
            let baseline = try #require(daemon.process.residentKiB())
            // 150 more cycles: 450 states, 150 of them 200 KiB success states: about 30 MiB that a daemon
            // queueing without bound would hold for the stalled subscriber.
            try await cycle(150)
            let after = try #require(daemon.process.residentKiB())
            let lastSeq = 3 * 160

            for reader in readers {
                #expect(reader.seen.value == NotificationLine.Seen(seqs: Array(0...lastSeq)), "a reading subscriber misses nothing")
            }

            let growthKiB = after - baseline
            // Bounded: at most 32 queued states (6.4 MiB) plus socket buffers and the replay ring (1 MiB), not 30 MiB.
            #expect(growthKiB < 24 * 1024, "RSS grew by \(growthKiB) KiB while a subscriber stalled (baseline \(baseline) KiB)")

            var last = 0
            var skipped = 0
            while last != lastSeq {
                let params = try #require(try await stalled.readMessage()["params"])
                last = try #require(params["state"]?["seq"]?.numberValue?.intValue)
                skipped += params["skipped"]?.numberValue?.intValue ?? 0
            }
            #expect(skipped > 400, "the stalled subscriber was told how many states it missed (\(skipped))")
        }
    }
}
