import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import DepotWire
import Foundation
import Testing

@Suite("depotd: writes end to end — rollback isolation, the item schema", .timeLimit(.minutes(3)))
struct WriteEndToEndTests {
    /// A list an HTTP API holds: PUT replaces an item (refused with 500 for `refused`), GET lists them.
    final class API: Sendable {
        let list = Locked<[(id: Int, json: String)]>((1...3).map { ($0, #"{"id":\#($0),"v":"item \#($0)"}"#) })
        let held = HeldReplies()
        let refused: Int

        init(refusing refused: Int) {
            self.refused = refused
        }

        func reply(_ request: HTTPTestServer.Request) -> HTTPTestServer.Reply {
            switch request.method {
            case "PUT":
                guard let id = Int(request.uri.split(separator: "/").last ?? ""), id != refused else {
                    return .held(held, status: 500)
                }
                list.withLock { list in
                    if let index = list.firstIndex(where: { $0.id == id }) { list[index].json = request.bodyText }
                }
                return .held(held, status: 204)
            default:
                return .respond(status: 200, body: "[" + list.withLock { $0.map { $0.json } }.joined(separator: ",") + "]")
            }
        }
    }

    @Test("three optimistic writes pending on a slow source, the middle one refused: no subscriber ever sees the first or third undone")
    func rollbackIsolation() async throws {
        let api = API(refusing: 2)
        let server = try await HTTPTestServer.start { api.reply($0) }
        do {
            try await withDaemon(["--source", server.url("/items"), "--put-url", server.url("/items/{id}")]) { daemon in
                _ = try await daemon.connect().call(LoadRequest())
                let watchers = [
                    try await MirroringSubscriber(try await daemon.connect(), SubscribeRequest(mode: .delta)),
                    try await MirroringSubscriber(try await daemon.connect(), SubscribeRequest(mode: .snapshot)),
                ]
                // Three clients, each shown in turn before the next asks: the source holds every answer meanwhile.
                let codes = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                    for (index, value) in ["first", "middle", "third"].enumerated() {
                        let connection = try await daemon.connect()
                        group.addTask {
                            let put = PutRequest(id: .number(JSONNumber(index + 1)), item: ["v": .string(value)], optimistic: true)
                            return (index, try await errorCode { _ = try await connection.call(put) })
                        }
                        try await withTimeout(.seconds(30), "write \(index + 1) to be shown") {
                            await watchers[0].progress.wait { $0.mirror.state?.provenance?.pending == index + 1 }
                        }
                    }
                    api.held.release()
                    var codes = [Int?](repeating: nil, count: 3)
                    for try await (index, code) in group { codes[index] = code }
                    return codes
                }
                #expect(codes == [nil, DepotErrorCode.changeFailed, nil], "the middle one alone is refused")

                let final = try await daemon.connect().call(StateRequest())
                #expect(final.provenance?.pending == 0)
                #expect(final.items?.map(\.jsonText) == [#"{"id":1,"v":"first"}"#, #"{"id":2,"v":"item 2"}"#, #"{"id":3,"v":"third"}"#])
                for (index, watcher) in watchers.enumerated() {
                    let progress = try await watcher.mirror(atSeq: final.seq)
                    #expect(progress.problem == nil)
                    // Every success state the subscriber was sent, as it held it.
                    var mirror = CollectionMirror()
                    var successes: [[String: String]] = []
                    for change in progress.changes {
                        try mirror.apply(change)
                        if change.status == "success" { successes.append(itemsByID(mirror.items).mapValues(\.jsonText)) }
                    }
                    for (id, value) in [("1", #"{"id":1,"v":"first"}"#), ("3", #"{"id":3,"v":"third"}"#)] {
                        let shownAt = try #require(successes.firstIndex { $0[id] == value }, "subscriber \(index) was shown write \(id)")
                        for state in successes[shownAt...] {
                            #expect(state[id] == value, "subscriber \(index): write \(id) undone after it was shown")
                        }
                    }
                    #expect(successes.last?["2"] == #"{"id":2,"v":"item 2"}"#, "subscriber \(index): the refused write is undone")
                    #expect(progress.changes.contains { $0.status == "failure" }, "subscriber \(index) was told of the refusal")
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("--item-schema: a write that leaves an item the schema refuses is -32009, naming each violation, and changes nothing")
    func itemSchema() async throws {
        let directory = TemporaryDirectory()
        let schema = directory.write(
            "item.schema.json",
            #"{"type": "object", "required": ["id", "name"], "properties": {"name": {"type": "string", "minLength": 1}, "n": {"type": "integer", "minimum": 0}}}"#
        )
        let source = Daemon.writeItems(3, in: directory)
        let before = try String(contentsOfFile: directory.file("items.json"), encoding: .utf8)
        try await withDaemon(["--source", source, "--item-schema", schema], directory: directory) { daemon in
            let connection = try await daemon.connect()
            let loaded = try await connection.call(LoadRequest())
            do {
                _ = try await connection.call(PutRequest(id: 4, item: ["name": "", "n": -1]))
                Issue.record("an item the schema refuses was put")
            } catch {
                guard case .remote(let remote)? = error as? DepotClientError else { throw error }
                #expect(remote.code == DepotErrorCode.invalidItem)
                let violations = remote.data?["violations"]?.arrayValue ?? []
                #expect(violations.compactMap { $0["keyword"]?.stringValue }.sorted() == ["minLength", "minimum"], "\(remote)")
                #expect(violations.compactMap { $0["pointer"]?.stringValue }.sorted() == ["/n", "/name"])
            }
            // A patch is checked as the item it leaves; a batch as a whole.
            let patched = try await errorCode { _ = try await connection.call(PatchRequest(id: 2, patch: .merge(["name": nil]))) }
            #expect(patched == DepotErrorCode.invalidItem)
            let batch = try await errorCode {
                _ = try await connection.call(
                    ApplyRequest(changes: [WireChange(.put, id: 5, item: ["name": "five"]), WireChange(.put, id: 6, item: ["name": 6])]))
            }
            #expect(batch == DepotErrorCode.invalidItem)
            #expect(try await connection.call(StateRequest()).seq == loaded.seq, "nothing published")
            #expect(try String(contentsOfFile: directory.file("items.json"), encoding: .utf8) == before, "nothing written")
            // An item that fits is put.
            _ = try await connection.call(PutRequest(id: 4, item: ["name": "four", "n": 4]))
            #expect(try await connection.call(GetRequest(id: "4")) == ["id": 4, "name": "four", "n": 4])
        }
    }
}
