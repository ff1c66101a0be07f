import DepotClient
import DepotJSON
import DepotTestSupport
import Testing

@Suite("depotd with an HTTP source")
struct HTTPSourceEndToEndTests {
    @Test("depotd --source http://127.0.0.1:PORT/items loads over HTTP, answers 304s, removes with DELETE, and never logs the token")
    func loadsOverHTTP() async throws {
        let token = "Bearer e2e-t0ken-9d1"
        let server = try await HTTPTestServer.start { request in
            guard request.header("Authorization") == token else { return .respond(status: 401) }
            switch (request.method, request.uri) {
            case ("GET", "/items") where request.header("If-None-Match") == #""v1""#:
                return .respond(status: 304)
            case ("GET", "/items"):
                return .respond(status: 200, headers: [("ETag", #""v1""#)], body: #"{"results":[{"id":"a/b c","name":"one"},{"id":2,"name":"two"}]}"#)
            case ("DELETE", _):
                return .respond(status: 500)
            default:
                return .respond(status: 404)
            }
        }
        let directory = TemporaryDirectory()
        let tokenFile = directory.write("token", token + "\n")
        let config = directory.write("depotd.json", #"{"itemsPath": "results", "headerFiles": {"Authorization": "\#(tokenFile)"}}"#)
        do {
            try await withDaemon(
                ["--config", config, "--source", server.url("/items"), "--delete-url", server.url("/items/{id}"), "--log-level", "trace"],
                directory: directory
            ) { daemon in
                let connection = try await daemon.connect()
                let loaded = try await connection.call("load", params: ["items": true])
                #expect(loaded["status"] == "success")
                #expect(loaded["items"]?.arrayValue?.compactMap { $0["id"] } == ["a/b c", 2])
                let again = try await connection.call("load", params: ["items": true])
                #expect(again["items"] == loaded["items"])

                do {
                    _ = try await connection.call("remove", params: ["id": "a/b c"])
                    Issue.record("the removal should have been refused")
                } catch DepotClientError.remote(let error) {
                    #expect(error.code == -32002)
                    #expect(error.message.contains("DELETE \(server.url("/items/a%2Fb%20c")) answered 500 Internal Server Error"))
                }
                await connection.close()

                let requests = server.requests.value
                #expect(requests.contains { $0.header("If-None-Match") == #""v1""# })
                #expect(requests.contains { $0.method == "DELETE" && $0.uri == "/items/a%2Fb%20c" })
                #expect(requests.allSatisfy { $0.header("Authorization") == token })
                #expect(!daemon.process.standardError.value.contains("e2e-t0ken"))
                #expect(daemon.process.standardError.value.contains("is unchanged"))
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
