import Testing

@testable import DepotBenchmarks

@Suite("Framing what the servers send: whole messages, their size and seq, however the reads split them")
struct MessageFramerTests {
    /// Feeds `bytes` in reads of `chunk` bytes and returns every message framed.
    func frame(_ bytes: [UInt8], with framer: any MessageFramer, chunk: Int) -> [FramedMessage] {
        var messages: [FramedMessage] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            bytes[start..<end].withUnsafeBytes { framer.feed($0) { messages.append($0) } }
            start = end
        }
        return messages
    }

    @Test("lines: a notification, an answer and an error answer, split at every size", arguments: [1, 2, 7, 64, 100_000])
    func lines(chunk: Int) {
        let notification =
            #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s12","skipped":3,"state":{"seq":42,"status":"success","items":[{"id":1,"seq":7}]}}}"#
        let answer = #"{"jsonrpc":"2.0","id":1,"result":{"seq":5,"status":"idle"}}"#
        let error = #"{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"no"}}"#
        let bytes = Array((notification + "\n" + answer + "\n" + error + "\n").utf8)

        let messages = frame(bytes, with: LineFramer(), chunk: chunk)

        #expect(messages.map(\.seq) == [42, 5, nil])
        #expect(messages.map(\.bytes) == [notification.utf8.count + 1, answer.utf8.count + 1, error.utf8.count + 1])
        #expect(messages.map(\.isError) == [false, false, true])
    }

    @Test("RESP: a subscription's confirmation, a published message, GET, SET and an error, split at every size", arguments: [1, 3, 16, 100_000])
    func resp(chunk: Int) {
        let payload = #"{"seq":9,"status":"success","items":[]}"#
        let replies = [
            "*3\r\n$9\r\nsubscribe\r\n$5\r\ndepot\r\n:1\r\n",
            "*3\r\n$7\r\nmessage\r\n$5\r\ndepot\r\n$\(payload.utf8.count)\r\n\(payload)\r\n",
            "$\(payload.utf8.count)\r\n\(payload)\r\n",
            "+OK\r\n",
            "$-1\r\n",
            "-ERR unknown command\r\n",
        ]

        let messages = frame(Array(replies.joined().utf8), with: RESPFramer(), chunk: chunk)

        #expect(messages.map(\.seq) == [nil, 9, 9, nil, nil, nil])
        #expect(messages.map(\.bytes) == replies.map(\.utf8.count))
        #expect(messages.map(\.isError) == [false, false, false, false, false, true])
    }

    @Test("a head's seq is the number after the first \"seq\": wherever it stands, and nil without one")
    func headSeq() {
        #expect(MessageHead.seq(in: Array(#"{"seq":12,"x":{"seq":9}}"#.utf8)) == 12)
        #expect(MessageHead.seq(in: Array(#"{"id":1,"result":{"seq":345}}"#.utf8)) == 345)
        #expect(MessageHead.seq(in: Array(#""seq":7"#.utf8)) == 7)
        #expect(MessageHead.seq(in: Array(#"{"se":"seq","seq":x}"#.utf8)) == nil)
        #expect(MessageHead.seq(in: Array(#""seq"#.utf8)) == nil)
        #expect(MessageHead.seq(in: []) == nil)
    }

    @Test("a command is an array of bulk strings")
    func command() {
        #expect(RESPFramer.command("GET", "state") == Array("*2\r\n$3\r\nGET\r\n$5\r\nstate\r\n".utf8))
    }

    @Test("the floor's line has exactly the size asked for, ends the line, and carries the seq")
    func floorLine() {
        for size in [40, 1000, 1_048_576] {
            let line = FloorServer.line(seq: 77, count: size)
            #expect(line.count == size)
            #expect(line.last == 0x0A)
            #expect(line.dropLast().contains(0x0A) == false)
            #expect(MessageHead.seq(in: Array(line.prefix(64))) == 77)
        }
    }

    @Test("generated items are 1 KiB each, and a state of them has the size the floor is told")
    func collection() {
        let collection = BenchCollection(count: 120)
        #expect(collection.items.allSatisfy { $0.count == BenchCollection.itemBytes })
        #expect(collection.stateJSON(seq: 3, ids: 5..<105).count == FloorUnderTest.stateBytes(seq: 3, items: 100))
    }

    @Test("the subscription scenarios' items are 200 bytes each")
    func smallItems() {
        let collection = BenchCollection(count: 50, itemBytes: BenchCollection.smallItemBytes)
        #expect(collection.items.allSatisfy { $0.count == 200 })
        #expect(collection.items.last.map { String(decoding: $0, as: UTF8.self).hasPrefix(#"{"id":50,"#) } == true)
    }

    @Test("percentiles are nearest-rank, in microseconds")
    func percentiles() {
        let summary = LatencySummary(nanoseconds: (1...100).map { UInt64($0) * 1000 }.shuffled())
        #expect(summary.samples == 100)
        #expect(summary.p50 == 50)
        #expect(summary.p99 == 99)
        #expect(summary.max == 100)
    }
}
