import DepotClient
import DepotJSON
import DepotTestSupport
import Testing

@Suite("depotd: bad input")
struct BadInputEndToEndTests {
    @Test("an oversized line closes only its own connection; malformed lines leave theirs usable; others never notice")
    func badInputIsContained() async throws {
        let directory = TemporaryDirectory()
        let source = Daemon.writeItems(3, in: directory)
        try await withDaemon(["--source", source, "--max-message-bytes", "1024"], directory: directory) { daemon in
            let bystander = try await daemon.connect()
            let subscription = try await bystander.subscribe()

            let malformed = try daemon.rawSocket()
            for line in ["nonsense", "{\"jsonrpc\":\"2.0\"", "[]", "[1,2]", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"state\"}", "\u{0}\u{1}"] {
                try malformed.send(line + "\n")
                let answer = try await malformed.readLine().map { try JSONParser.parse($0) }
                let codes = answer?.arrayValue?.map { $0["error"]?["code"] } ?? [answer?["error"]?["code"]]
                #expect(codes.allSatisfy { $0 == -32700 || $0 == -32600 }, "\(line): \(String(describing: answer))")
            }

            let oversized = try daemon.rawSocket()
            try oversized.send(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":""# + String(repeating: "9", count: 2000) + "\"}}\n")
            let refusal = try await oversized.readMessage()
            #expect(refusal["error"]?["code"] == -32600)
            #expect(refusal["id"] == .null)
            #expect(try await oversized.readLine() == nil, "the oversized line's connection is closed")

            try malformed.send(#"{"jsonrpc":"2.0","id":2,"method":"state"}"# + "\n")
            #expect(try await malformed.readMessage()["id"] == 2, "the connection with malformed lines still works")

            _ = try await bystander.call("wipe")
            var seqs: [Int] = []
            for await change in subscription {
                seqs.append(change.seq ?? -1)
                if change.status == "idle" && (change.seq ?? 0) > 0 { break }
            }
            #expect(seqs == Array(seqs[0]...seqs[0] + seqs.count - 1), "the bystander saw an unbroken sequence: \(seqs)")
            #expect(daemon.process.exitStatus.value == nil, "the daemon is still running")
        }
    }
}
