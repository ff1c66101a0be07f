import DepotClient
import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@testable import DepotServer

@Suite("Server: bad input")
struct BadInputTests {
    @Test("malformed lines get the spec's error and the connection stays usable")
    func malformedLinesKeepTheConnection() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            let cases: [(String, Int)] = [
                ("{not json", -32700),
                ("[]", -32600),
                (#"{"jsonrpc":"2.0","id":1}"#, -32600),
                (#"{"jsonrpc":"1.0","id":1,"method":"state"}"#, -32600),
                (#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#, -32601),
                (#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":true}}"#, -32602),
                (String(repeating: "[", count: 10_000), -32700),
                ("\u{FEFF}", -32700),
            ]
            for (line, code) in cases {
                try await connection.send(line)
                let answer = try await connection.nextMessage(&lines)
                #expect(answer["error"]?["code"]?.numberValue?.intValue == code, "\(line.prefix(40))")
            }
            try await connection.send(bytes: [0xFF, 0xFE, UInt8(ascii: "\n")])
            #expect(try await connection.nextMessage(&lines)["error"]?["code"] == -32700)
            try await connection.send(#"{"jsonrpc":"2.0","id":"still-here","method":"state"}"#)
            let answer = try await connection.nextMessage(&lines)
            #expect(answer["id"] == "still-here")
            #expect(answer["result"]?["status"] == "idle")
        }
    }

    @Test("empty lines, whitespace and CRLF endings are not messages; the request after them is answered")
    func whitespaceLines() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(bytes: Array("\n \t \r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"state\"}\r\n".utf8))
            let answer = try await connection.nextMessage(&lines)
            #expect(answer["id"] == 1)
            #expect(answer["result"]?["seq"] == 0)
        }
    }

    @Test("a line over the limit is answered with an error and its connection closed; other clients are untouched")
    func oversizedLine() async throws {
        try await withServer(limits: ConnectionLimits(maxMessageBytes: 256)) { server in
            let bystander = try await server.connect()
            let subscription = try await bystander.subscribe()

            let offender = try await server.connectLines()
            var lines = offender.lines.makeAsyncIterator()
            let padding = String(repeating: "x", count: 300)
            try await offender.send(#"{"jsonrpc":"2.0","id":1,"method":"state","params":{"pad":"\#(padding)"}}"#)
            let answer = try await offender.nextMessage(&lines)
            #expect(answer["id"] == .null)
            #expect(answer["error"]?["code"] == -32600)
            #expect(answer["error"]?["message"]?.stringValue?.contains("longer than 256 bytes") == true)
            #expect(try await lines.next() == nil, "the connection is closed after the answer")

            _ = try await bystander.call("load")
            let changes = try await subscription.collect(untilSeq: 2)
            #expect(changes.map(\.seq) == [0, 1, 2])
        }
    }

    @Test("a line exactly at the limit is accepted")
    func lineAtTheLimit() async throws {
        try await withServer(limits: ConnectionLimits(maxMessageBytes: 256)) { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            let request = #"{"jsonrpc":"2.0","id":1,"method":"state"}"#
            let padded = request + String(repeating: " ", count: 256 - request.utf8.count)
            try await connection.send(padded)
            #expect(try await connection.nextMessage(&lines)["result"]?["seq"] == 0)
        }
    }

    @Test("a huge line is refused as soon as it passes the limit, without waiting for its end")
    func hugeLineWithoutNewline() async throws {
        try await withServer(limits: ConnectionLimits(maxMessageBytes: 1024)) { server in
            let socket = try server.rawSocket()
            try socket.send(String(repeating: "a", count: 4096))
            let answer = try await socket.readMessage()
            #expect(answer["error"]?["code"] == -32600)
            #expect(try await socket.readLine() == nil)
        }
    }

    @Test("a client that closes its sending side gets its answers, then the connection closes")
    func halfClose() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            // The last request has no newline: end of input ends it.
            try await connection.send(
                bytes: Array(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#.utf8) + [10] + Array(#"{"jsonrpc":"2.0","id":2,"method":"state"}"#.utf8))
            try await connection.finishSending()
            var ids: Set<JSONValue> = []
            while let line = try await lines.next() {
                ids.insert(try JSONParser.parse(line)["id"] ?? .null)
            }
            #expect(ids == [1, 2], "both answered before the close")
        }
    }

    @Test("a client that sends many requests and never reads does not stop others from being served")
    func nonReadingRequester() async throws {
        try await withServer(source: SlowSubscriberTests.bulkySource()) { server in
            _ = try await server.repository.load().result.get()
            let greedy = try server.rawSocket(receiveBufferBytes: 4096)
            let request = #"{"jsonrpc":"2.0","id":1,"method":"state"}"# + "\n"
            // 2,000 requests of a 64 KiB answer each (about 128 MiB of answers) that it never reads.
            let flood = Task.detached {
                for _ in 0..<2_000 {
                    try? greedy.send(request)
                }
            }
            let other = try await server.connect()
            for _ in 0..<20 {
                _ = try await other.call("state")
            }
            _ = try await other.call("wipe")
            #expect(try await other.call("state") == ["seq": 3, "epoch": .string(server.repository.epoch), "status": "idle"])
            _ = greedy.fd  // keep it open until here
            flood.cancel()
        }
    }
}

@Suite("Server: random input")
struct RandomInputTests {
    /// Lines made of JSON-RPC fragments and random bytes: near misses are more interesting than noise.
    static func garbage(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        let fragments = [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\"jsonrpc\"", "\"2.0\"", "\"id\"", "\"method\"", "\"params\"",
            "\"state\"", "\"get\"", "\"remove\"", "\"subscribe\"", "null", "true", "1e999", "-0", "0.5", "\"\\u0000\"",
            "\"\\ud800\"", " ", "\t", "\r", "{}", "[]", "\"x\"",
        ].map { Array($0.utf8) }
        return (0..<count).map { _ in
            var line: [UInt8] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                if Bool.random(using: &random) {
                    line += fragments.randomElement(using: &random)!
                } else {
                    // Any byte but the newline that ends the line.
                    var byte = UInt8.random(in: 0...255, using: &random)
                    if byte == UInt8(ascii: "\n") { byte = 0 }
                    line.append(byte)
                }
            }
            return line
        }
    }

    @Test("a thousand lines of near-JSON garbage: every answer is valid JSON-RPC, and the connection and server go on", arguments: [UInt64(1), 2, 3])
    func garbageIsAnsweredNotFatal(seed: UInt64) async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            for line in Self.garbage(count: 1000, seed: seed) {
                try await connection.send(bytes: line + [UInt8(ascii: "\n")])
            }
            try await connection.send(#"{"jsonrpc":"2.0","id":"final","method":"state"}"#)
            var answers = 0
            while true {
                let message = try await connection.nextMessage(&lines)
                if message["id"] == "final" { break }
                for answer in message.arrayValue ?? [message] {
                    #expect(answer["jsonrpc"] == "2.0")
                    #expect(answer["error"]?["code"]?.numberValue != nil || answer["result"] != nil || answer["method"] == "stateChanged")
                }
                answers += 1
            }
            #expect(answers > 0)
            let other = try await server.connect()
            #expect(try await other.call("state")["status"] != nil, "the server still serves others")
        }
    }
}

@Suite("Server: a batch's answers are bounded in bytes")
struct BatchAnswerLimitTests {
    @Test("256 rpc.discover in one batch: every one answered, the line within the bound, those past it limitExceeded")
    func amplification() async throws {
        let limit = 64 * 1024
        try await withServer(limits: ConnectionLimits(maxBatchAnswerBytes: limit)) { server in
            let connection = try await server.connectLines()
            let batch = "[" + (0..<256).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"rpc.discover"}"# }.joined(separator: ",") + "]"
            try await connection.send(batch)
            var lines = connection.lines.makeAsyncIterator()
            let line = try #require(try await lines.next())
            let answers = try #require(try JSONParser.parse(line).arrayValue)
            let document = answers[0].jsonText.utf8.count
            #expect(line.count <= limit + document + 256 * 400, "the bound, one answer past it, and a short error for each left out")
            #expect(line.count < 256 * document / 10, "not the 256 documents (\(256 * document) bytes)")
            #expect(answers.count == 256)
            #expect(answers.map { $0["id"]?.numberValue?.intValue } == Array(0..<256).map { $0 }, "in order, each id once")
            let answered = answers.filter { $0["result"] != nil }.count
            #expect(answered >= 1 && answered < 256)
            for leftOut in answers where leftOut["error"] != nil {
                #expect(leftOut["error"]?["code"] == -32004)
                #expect(leftOut["error"]?["message"]?.stringValue?.contains("this call ran, but its answer is left out") == true)
            }
        }
    }
}

@Suite("Server: a batch's calls each count toward a connection's pending work")
struct BatchPendingTests {
    @Test("a batch of 100 removals holds the connection's reading until it is answered: its next line is read after")
    func batchHoldsReading() async throws {
        let source = TestSource(count: 120)
        try await withServer(source: source) { server in
            _ = try await server.connect().call("load")
            let gate = source.holdNextDelete()
            let connection = try await server.connectLines()
            let batch =
                "[" + (1...100).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"remove","params":{"id":"\#($0)"}}"# }.joined(separator: ",") + "]"
            try await connection.send(batch)
            // The batch is read and its first removal under way; the next line comes in a later read.
            try await withTimeout { await source.calls.wait { $0.deletesStarted == 1 } }
            try await connection.send(#"{"jsonrpc":"2.0","id":"after","method":"state"}"#)
            gate.open()
            var lines = connection.lines.makeAsyncIterator()
            let first = try await connection.nextMessage(&lines)
            #expect(first.arrayValue?.count == 100, "the batch's answer comes first: the state line was not read while 100 calls waited")
            let second = try await connection.nextMessage(&lines)
            #expect(second["id"] == "after")
        }
    }
}

@Suite("Server: connections are bounded, in all and per user")
struct ConnectionLimitTests {
    @Test("past maxConnections a new connection gets one limitExceeded line and is closed; once one closes, another is served")
    func total() async throws {
        try await withServer(limits: ConnectionLimits(maxConnections: 3)) { server in
            var held: [DepotConnection] = []
            for _ in 0..<3 {
                let connection = try await server.connect()
                _ = try await connection.call("state")
                held.append(connection)
            }
            let refused = try await server.connectLines()
            var lines = refused.lines.makeAsyncIterator()
            let error = try await refused.nextMessage(&lines)
            #expect(error["error"]?["code"] == -32004)
            #expect(error["error"]?["message"]?.stringValue?.contains("depotd holds 3 connections, the most it may (--max-connections)") == true)
            #expect(try await lines.next() == nil, "and closed")
            #expect(server.server.connections.total == 3)

            await held.removeLast().close()
            try await withTimeout { await waitFor { server.server.connections.total == 2 } }
            #expect(try await server.connect().call("state")["seq"] != nil)
        }
    }
}

/// Polls `condition` on the cooperative pool until it holds (a count updated by another thread).
private func waitFor(_ condition: @escaping @Sendable () -> Bool) async {
    while !condition() {
        await Task.yield()
    }
}

@Suite("Server: a line left unfinished")
struct PartialLineTests {
    @Test("a line left unfinished past the timeout closes its connection; others, and finished lines, are not affected")
    func slowSender() async throws {
        try await withServer(limits: ConnectionLimits(partialLineTimeout: .milliseconds(300))) { server in
            let stalled = try await server.connectLines()
            try await stalled.send(bytes: Array(#"{"jsonrpc":"2.0","id":1,"#.utf8))
            var lines = stalled.lines.makeAsyncIterator()
            #expect(try await lines.next() == nil, "closed, with nothing answered")
            // A client that finishes its lines is served as ever.
            let prompt = try await server.connect()
            #expect(try await prompt.call("state")["seq"] != nil)
        }
    }
}
