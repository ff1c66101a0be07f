import DepotCore
import DepotHTTPSource
import DepotJSON
import DepotSources
import DepotTestSupport
import Testing

@Suite("HTTPSource: fetch")
struct HTTPSourceFetchTests {
    @Test("200 with a JSON array: the items as given, and GET sent with Accept: application/json")
    func ok() async throws {
        try await withServer({ _ in .respond(status: 200, body: threeItems) }) { server in
            let items = try await httpSource(server).fetchItems()
            #expect(items.map(\.jsonText) == [#"{"id":1,"name":"one"}"#, #"{"id":2,"name":"two"}"#, #"{"id":"c","name":"three"}"#])
            let request = try #require(server.requests.value.first)
            #expect(request.method == "GET")
            #expect(request.uri == "/items")
            #expect(request.header("Accept") == "application/json")
        }
    }

    @Test("the query is sent as given", arguments: ["/items?page=1&key=a%20b"])
    func query(path: String) async throws {
        try await withServer({ _ in .respond(status: 200, body: "[]") }) { server in
            _ = try await httpSource(server, path).fetchItems()
            #expect(server.requests.value.map(\.uri) == [path])
        }
    }

    @Test(
        "200 with the array under --items-path, one member or a dotted path",
        arguments: [
            ("results", #"{"count":3,"results":\#(threeItems)}"#),
            ("data.results", #"{"data":{"results":\#(threeItems)},"next":null}"#),
        ])
    func itemsPath(path: String, body: String) async throws {
        try await withServer({ _ in .respond(status: 200, body: body) }) { server in
            let source = try httpSource(server) { $0.itemsPath = try ItemsPath(parsing: path) }
            #expect(try await source.fetchItems().count == 3)
        }
    }

    @Test(
        "a body that is not the array named is invalid data, with what was found and what to set",
        arguments: [
            (
                "", #"{"results":[]}"#,
                #"the response is an object, not a JSON array of items; if the items are in a member, name it with --items-path ("itemsPath"), as in results"#
            ),
            (
                "results", #"{"data":[],"count":0}"#,
                #"the response has no member "results" (it has "data", "count"); check --items-path ("itemsPath")"#
            ),
            ("data.results", #"{"data":[1]}"#, #""data" is an array, not an object with a member "results"; check --items-path ("itemsPath")"#),
            ("results", #"{"results":{"a":1}}"#, #""results" is an object, not a JSON array of items"#),
            ("", #""text""#, "the response is a string, not a JSON array of items"),
        ])
    func notAnArray(path: String, body: String, problem: String) async throws {
        try await withServer({ _ in .respond(status: 200, body: body) }) { server in
            let source = try httpSource(server) { if !path.isEmpty { $0.itemsPath = try ItemsPath(parsing: path) } }
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
            #expect(error == SourceError(.invalidData, "GET \(server.url("/items")): \(problem)"))
        }
    }

    @Test("a garbage body is invalid JSON, with the parser's position and what to check")
    func garbage() async throws {
        try await withServer({ _ in .respond(status: 200, body: "<html>oops</html>") }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetchItems() })
            #expect(
                error
                    == SourceError(
                        .invalidData,
                        "GET \(server.url("/items")) answered with a body that is not valid JSON: unexpected character '<' at byte 0 (line 1, column 1); check that the URL serves a JSON array of items"
                    ))
        }
    }

    @Test("500 is a failure naming the URL, the status and what to do; the body is not read")
    func serverError() async throws {
        try await withServer({ _ in .respond(status: 500, body: "secret stack trace") }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetchItems() })
            #expect(
                error
                    == SourceError(
                        .unavailable,
                        "GET \(server.url("/items")) answered 500 Internal Server Error; the server failed; look at the server's logs, or try again later"
                    ))
        }
    }

    @Test("501 is not worth trying again; 503 is")
    func notImplemented() async throws {
        try await withServer({ request in .respond(status: request.uri == "/busy" ? 503 : 501) }) { server in
            let unsupported = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetchItems() })
            #expect(
                unsupported.message.hasSuffix(
                    "answered 501 Not Implemented; the server does not support this request: check the URL, and --delete-url for removals"))
            #expect(!unsupported.message.contains("try again"))
            let busy = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server, "/busy").fetchItems() })
            #expect(busy.message.hasSuffix("answered 503 Service Unavailable; the server or a proxy in front of it is unavailable; try again later"))
        }
    }

    @Test("404 and 401 say what to check")
    func clientErrors() async throws {
        try await withServer({ request in .respond(status: request.uri == "/gone" ? 404 : 401) }) { server in
            let missing = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server, "/gone").fetchItems() })
            #expect(missing.message == "GET \(server.url("/gone")) answered 404 Not Found; check the URL")
            let denied = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetchItems() })
            #expect(
                denied.message
                    == #"GET \#(server.url("/items")) answered 401 Unauthorized; check the credentials sent in "headerFiles" or "headerCredentials" in the config file"#
            )
        }
    }

    @Test("a server that never answers hits the request timeout, and the message says which and what to do")
    func slow() async throws {
        try await withServer({ _ in .hang }) { server in
            let source = try httpSource(server) { $0.requestTimeout = .milliseconds(500) }
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
            #expect(
                error
                    == SourceError(
                        .unavailable,
                        "GET \(server.url("/items")) timed out: no complete answer within 0.5 seconds (requestTimeout); check that the server is up, or raise --request-timeout"
                    ))
        }
    }

    @Test("an endless body stops at the size limit, and the connection is dropped")
    func hugeStreamedBody() async throws {
        try await withServer({ _ in .endless }) { server in
            let source = try httpSource(server) { $0.maxResponseBytes = 1_000_000 }
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
            #expect(
                error
                    == SourceError(
                        .invalidData,
                        "GET \(server.url("/items")) sent more than 1000000 bytes, the limit (maxResponseBytes), so reading stopped; if the collection really is that large, raise --max-response-bytes"
                    ))
        }
    }

    @Test("a body whose Content-Length is over the limit is refused before it is read")
    func announcedTooLarge() async throws {
        let body = "[" + String(repeating: "1,", count: 600) + "1]"
        try await withServer({ _ in .respond(status: 200, body: body) }) { server in
            let source = try httpSource(server) { $0.maxResponseBytes = 1000 }
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
            #expect(error.kind == .invalidData)
            #expect(error.message.contains("sent more than 1000 bytes"))
            let exact = try httpSource(server) { $0.maxResponseBytes = body.utf8.count }
            #expect(try await exact.fetchItems().count == 601)
        }
    }

    @Test("redirects are followed up to the limit; one more is refused with what to do")
    func redirects() async throws {
        // /hop/N redirects to /hop/N-1; /hop/0 answers the items.
        try await withServer({ request in
            guard let n = Int(request.uri.dropFirst("/hop/".count)), n > 0 else { return .respond(status: 200, body: threeItems) }
            return .respond(status: 302, headers: [("Location", "/hop/\(n - 1)")])
        }) { server in
            let followed = try httpSource(server, "/hop/3") { $0.maxRedirects = 3 }
            #expect(try await followed.fetchItems().count == 3)
            #expect(server.requests.value.map(\.uri) == ["/hop/3", "/hop/2", "/hop/1", "/hop/0"])

            let tooMany = try httpSource(server, "/hop/4") { $0.maxRedirects = 3 }
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await tooMany.fetchItems() })
            #expect(
                error.message
                    == "GET \(server.url("/hop/4")) was redirected more than 3 times (maxRedirects); set --source to the final URL, or raise --max-redirects"
            )

            let none = try httpSource(server, "/hop/1") { $0.maxRedirects = 0 }
            let refused = try #require(await #expect(throws: SourceError.self) { _ = try await none.fetchItems() })
            #expect(refused.message.hasPrefix("GET \(server.url("/hop/1")) answered 302 Found; follow the redirect yourself"))
        }
    }

    @Test("a redirect loop is refused at once")
    func redirectLoop() async throws {
        try await withServer({ request in
            .respond(status: 301, headers: [("Location", request.uri == "/a" ? "/b" : "/a")])
        }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server, "/a").fetchItems() })
            #expect(error.message == "GET \(server.url("/a")) is redirected in a loop; check the URL and the server's redirects")
            #expect(server.requests.value.count == 2)
        }
    }

    @Test("nothing listening: the failure comes at once, names the URL, says the connection was refused and what to check")
    func refused() async throws {
        // A port held, where nothing listens (a stopped server's port could be given to another test's server).
        let server = try RefusingPort()
        // A refused connection fails at once, not after the connect timeout (AsyncHTTPClient's retries are off):
        // with a ten-minute connect timeout, this test would run past its own limit.
        let source = try httpSource(url: server.url("/items")) { $0.connectTimeout = .seconds(600) }
        let error = try await withTimeout(.seconds(30), "a refused connection to fail the fetch") {
            try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
        }
        #expect(error.kind == .unavailable)
        #expect(
            error.message
                == "GET \(server.url("/items")) failed: connection refused: nothing listens at that address; check that the server is up and the URL's port"
        )
    }

    @Test("the query's values never appear in the description or a message")
    func queryRedacted() async throws {
        try await withServer({ _ in .respond(status: 500) }) { server in
            let source = try httpSource(server, "/items?api_key=hunter2&page=1&flag")
            #expect(source.description == server.url("/items?api_key=…&page=…&flag"))
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
            #expect(!error.message.contains("hunter2"))
            #expect(error.message.hasPrefix("GET \(server.url("/items?api_key=…&page=…&flag")) answered 500"))
        }
    }
}
