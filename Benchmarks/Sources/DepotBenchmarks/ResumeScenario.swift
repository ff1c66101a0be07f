import Foundation

/// Issue 13: what a delta-mode client that reconnects after missing `removals` optimistic removals of a
/// collection of `items` items receives when it resumes (`since`), against starting again (a resync: the
/// current state in full). Bytes are every byte of the subscribe answer and the notifications up to the current
/// state; time is from `subscribe` sent to the current state read.
public struct ResumeScenario: Sendable {
    public var items: Int
    public var removals: Int

    public init(items: Int, removals: Int) {
        self.items = items
        self.removals = removals
    }

    public func run(binary: String, directory: String, collection: BenchCollection) throws -> ResumeFigures {
        let depotd = try DepotdUnderTest(
            binary: binary, directory: directory, collection: collection, mode: "delta", trigger: .optimisticRemoval)
        defer { depotd.process.stop() }
        try depotd.prepare(items: items)

        // A client that held the loaded state, then went away.
        let away = try ControlConnection(path: depotd.socketPath, framing: .lines)
        try away.send(Array(depotd.subscribeMessage))
        _ = try away.receive()
        let (_, head) = try away.receive()
        guard let epoch = Self.epoch(in: head), let heldSeq = depotd.subscribedSeq else {
            throw BenchError("the first notification named no epoch: \(String(decoding: head, as: UTF8.self))")
        }
        var current = heldSeq
        for _ in 0..<removals {
            let (_, settled) = try depotd.prepareRound(items: items, tracker: SubscriberTracker(), subscribers: 0)
            try depotd.trigger()
            try depotd.finishRound()
            current = settled
        }

        let resumed = try receive(
            depotd.socketPath,
            params: #"{"mode":"delta","since":{"epoch":"\#(epoch)","seq":\#(heldSeq)}}"#, until: current, missed: current - heldSeq)
        let resync = try receive(
            depotd.socketPath, params: #"{"mode":"delta","since":{"epoch":"another run","seq":\#(heldSeq)}}"#, until: current,
            missed: current - heldSeq)
        return ResumeFigures(
            items: items, itemBytes: BenchCollection.smallItemBytes, removals: removals, missedStates: current - heldSeq,
            resumed: resumed.resumed, resumeBytes: resumed.bytes, resumeMilliseconds: resumed.milliseconds, resumeMessages: resumed.messages,
            resyncBytes: resync.bytes, resyncMilliseconds: resync.milliseconds)
    }

    /// Subscribes with `params` and reads until the state `seq`: the bytes, the notifications, the time, and
    /// whether it resumed — every one of the `missed` states came, each in its notification, where a resync
    /// sends one. (The answer's `resumed` may share a read with the first notifications, so its head is not kept.)
    private func receive(
        _ socketPath: String, params: String, until seq: Int, missed: Int
    ) throws -> (
        bytes: Int, messages: Int, milliseconds: Double, resumed: Bool
    ) {
        let client = try ControlConnection(path: socketPath, framing: .lines)
        let start = MonotonicClock.now()
        try client.send(line: #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":\#(params)}"#)
        let (answer, _) = try client.receive()
        var bytes = answer.bytes
        var messages = 0
        while true {
            let (message, _) = try client.receive()
            bytes += message.bytes
            messages += 1
            if let received = message.seq, received >= seq { break }
        }
        return (bytes, messages, Double(MonotonicClock.now() - start) / 1e6, messages == missed)
    }

    /// The `epoch` member's value in a notification's first bytes.
    static func epoch(in head: [UInt8]) -> String? {
        let text = String(decoding: head, as: UTF8.self)
        guard let marker = text.range(of: #""epoch":""#), let end = text[marker.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(text[marker.upperBound..<end])
    }
}
