import DepotClient
import DepotCore
import DepotJSON
import DepotServer
import DepotTestSupport
import Testing

@Suite("Server: requests and answers")
struct RequestTests {
    @Test("requests on one connection overlap: a read answers while a load waits on the source")
    func answersOutOfOrder() async throws {
        try await withServer { server in
            let gate = server.source.holdNextFetch()
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(#"{"jsonrpc":"2.0","id":"slow","method":"load"}"#)
            await server.source.calls.wait { $0.fetchesStarted == 1 }
            try await connection.send(#"{"jsonrpc":"2.0","id":"fast","method":"state"}"#)
            let first = try await connection.nextMessage(&lines)
            #expect(first["id"] == "fast")
            #expect(first["result"]?["status"] == "loading", "the read saw the load in progress and did not wait for it")
            gate.open()
            let second = try await connection.nextMessage(&lines)
            #expect(second["id"] == "slow")
            #expect(second["result"]?["status"] == "success")
            #expect(second["result"]?["seq"] == 2)
        }
    }

    @Test("get answers the item exactly as the source gave it")
    func getItem() async throws {
        let source = TestSource(items: [try JSONParser.parse(#"{"name":"Pikachu","id":25,"stats":{"hp":35,"speed":90.0}}"#)])
        try await withServer(source: source) { server in
            let connection = try await server.connect()
            _ = try await connection.call("load")
            let item = try await connection.call("get", params: ["id": "25"])
            #expect(item.jsonText == #"{"name":"Pikachu","id":25,"stats":{"hp":35,"speed":90.0}}"#)
            let byNumber = try await connection.call("get", params: ["id": 25])
            #expect(byNumber == item, "an integer id param finds the item too")
        }
    }

    @Test("get of an unknown id, or before anything is loaded, is notFound (-32003) with a message that says why")
    func getNotFound() async throws {
        try await withServer { server in
            let connection = try await server.connect()
            let beforeLoad = await #expect(throws: DepotClientError.self) { try await connection.call("get", params: ["id": "1"]) }
            #expect(Self.remote(beforeLoad)?.code == -32003)
            #expect(Self.remote(beforeLoad)?.message == "no item \"1\": no items are loaded (the state is idle); run load first")
            _ = try await connection.call("load")
            let unknown = await #expect(throws: DepotClientError.self) { try await connection.call("get", params: ["id": "99"]) }
            #expect(Self.remote(unknown)?.code == -32003)
            #expect(Self.remote(unknown)?.message == "no item with id \"99\" among the 3 loaded items")
        }
    }

    @Test("a failed load answers loadFailed (-32001) with the failure state as data")
    func loadFailed() async throws {
        try await withServer { server in
            server.source.failNextFetch(SourceError(.unavailable, "the test source is unplugged"))
            let connection = try await server.connect()
            let error = await #expect(throws: DepotClientError.self) { try await connection.call("load") }
            let remote = try #require(Self.remote(error))
            #expect(remote.code == -32001)
            #expect(remote.message == "the test source is unplugged")
            #expect(
                remote.data == [
                    "seq": 2, "epoch": .string(server.repository.epoch), "status": "failure",
                    "error": ["code": -32001, "message": "the test source is unplugged"],
                ])
        }
    }

    @Test("a refused removal answers changeFailed (-32002) with the rolled-back state as data")
    func changeFailed() async throws {
        try await withServer { server in
            let connection = try await server.connect()
            _ = try await connection.call("load")
            server.source.failNextDelete()
            let error = await #expect(throws: DepotClientError.self) {
                try await connection.call("remove", params: ["id": "1", "optimistic": true])
            }
            let remote = try #require(Self.remote(error))
            #expect(remote.code == -32002)
            #expect(remote.data?["seq"] == 5)
            #expect(remote.data?["status"] == "success")
            #expect(remote.data?["count"] == 3, "the data is the state with the item back")
        }
    }

    @Test("removing an id the source lacks answers notFound (-32003) with the rolled-back state")
    func removeNotFound() async throws {
        try await withServer { server in
            let connection = try await server.connect()
            _ = try await connection.call("load")
            let error = await #expect(throws: DepotClientError.self) { try await connection.call("remove", params: ["id": "404"]) }
            let remote = try #require(Self.remote(error))
            #expect(remote.code == -32003)
            #expect(remote.data?["status"] == "success")
        }
    }

    @Test("remove answers the state published when the removal completed; wipe answers idle")
    func removeAndWipeAnswers() async throws {
        try await withServer { server in
            let connection = try await server.connect()
            _ = try await connection.call("load")
            let removed = try await connection.call("remove", params: ["id": "3", "optimistic": true])
            #expect(removed["seq"] == 4)
            #expect(removed["count"] == 2)
            let idle: JSONValue = ["seq": 5, "epoch": .string(server.repository.epoch), "status": "idle"]
            #expect(try await connection.call("wipe") == idle)
            #expect(try await connection.call("state") == idle)
        }
    }

    @Test("a notification is executed and never answered")
    func notificationsAreExecuted() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            var lines = connection.lines.makeAsyncIterator()
            try await connection.send(#"{"jsonrpc":"2.0","method":"load"}"#)
            try await connection.send(#"{"jsonrpc":"2.0","method":"no-such-method"}"#)
            let recorder = StateRecorder()
            server.repository.addObserver(recorder)
            await recorder.states.wait { $0.last?.seq == 2 }
            try await connection.send(#"{"jsonrpc":"2.0","id":1,"method":"state"}"#)
            let answer = try await connection.nextMessage(&lines)
            #expect(answer["id"] == 1, "the first line is the answer to the request, nothing for the notifications")
            #expect(answer["result"]?["seq"] == 2)
        }
    }

    static func remote(_ error: DepotClientError?) -> RemoteError? {
        if case .remote(let remote)? = error { return remote }
        return nil
    }
}
