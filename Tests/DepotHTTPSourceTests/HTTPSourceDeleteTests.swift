import DepotCore
import DepotHTTPSource
import DepotSources
import DepotTestSupport
import Testing

@Suite("HTTPSource: delete")
struct HTTPSourceDeleteTests {
    static func deletable(_ server: HTTPTestServer) throws -> HTTPSource {
        try httpSource(server) { $0.deleteURL = try ItemURLTemplate(parsing: server.url("/items/{id}")) }
    }

    @Test("204 and 200 are success; DELETE goes to the template's URL", arguments: [204, 200])
    func success(status: Int) async throws {
        try await withServer({ _ in .respond(status: status) }) { server in
            try await Self.deletable(server).deleteItem(id: "25")
            let request = try #require(server.requests.value.first)
            #expect(request.method == "DELETE")
            #expect(request.uri == "/items/25")
        }
    }

    @Test(
        "the id is percent-encoded as one path segment",
        arguments: [
            ("a/b c", "/items/a%2Fb%20c"),
            ("ü?#&%", "/items/%C3%BC%3F%23%26%25"),
            ("safe-._~AZ09", "/items/safe-._~AZ09"),
        ])
    func percentEncoding(id: String, uri: String) async throws {
        try await withServer({ _ in .respond(status: 204) }) { server in
            try await Self.deletable(server).deleteItem(id: id)
            #expect(server.requests.value.map(\.uri) == [uri])
        }
    }

    @Test("404 is notFound, naming the request and the id")
    func notFound() async throws {
        try await withServer({ _ in .respond(status: 404) }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.deletable(server).deleteItem(id: "a/b") })
            #expect(
                error
                    == SourceError(.notFound, #"DELETE \#(server.url("/items/a%2Fb")) answered 404 Not Found: the server has no item with id "a/b""#))
        }
    }

    @Test("500 is a refusal with the status and what to do")
    func refused() async throws {
        try await withServer({ _ in .respond(status: 500) }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.deletable(server).deleteItem(id: "7") })
            #expect(
                error
                    == SourceError(
                        .refused,
                        "DELETE \(server.url("/items/7")) answered 500 Internal Server Error, so the change was not made; the server failed; look at the server's logs, or try again later"
                    ))
        }
    }

    @Test("without a delete URL a removal is refused with what to set, and nothing is sent")
    func noDeleteURL() async throws {
        try await withServer({ _ in .respond(status: 204) }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { try await httpSource(server).deleteItem(id: "7") })
            #expect(
                error
                    == SourceError(
                        .unsupported,
                        #"\#(server.url("/items")) allows no removals: no URL is set for them; set --delete-url ("deleteURL" in the config file) to the URL that takes a DELETE of one item, with {id} where the id goes, as in http://HOST/items/{id}"#
                    ))
            #expect(server.requests.value.isEmpty)
        }
    }

    @Test("through a repository: a 404 rolls back with notFound; a 204 removes and refetches")
    func repository() async throws {
        try await withServer({ request in
            switch (request.method, request.uri) {
            case ("DELETE", "/items/2"): .respond(status: 204)
            case ("DELETE", _): .respond(status: 404)
            default: .respond(status: 200, body: threeItems)
            }
        }) { server in
            let repository = makeRepository(try Self.deletable(server))
            _ = try await repository.load().result.get()
            let missing = await repository.remove(id: "c", optimistic: true).result
            guard case .failure(let error) = missing else {
                Issue.record("expected a failure")
                return
            }
            #expect(error.kind == .notFound)
            #expect(error.state.state.items?.count == 3)
            _ = try await repository.remove(id: "2").result.get()
            #expect(server.requests.value.map(\.description) == ["GET /items", "DELETE /items/c", "DELETE /items/2", "GET /items"])
        }
    }

    @Test("templates: {id} must be there, and not in the host")
    func templates() {
        #expect(throws: SettingProblem("has no {id} where the item's id goes, as in https://example.com/items/{id}")) {
            try ItemURLTemplate(parsing: "https://example.com/items")
        }
        #expect(throws: SettingProblem("has {id} in its host; put it in the path, as in https://example.com/items/{id}")) {
            try ItemURLTemplate(parsing: "https://{id}.example.com/items")
        }
        #expect((try? ItemURLTemplate(parsing: "https://example.com/items?id={id}&key=k")) != nil)
    }
}
