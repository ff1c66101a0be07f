import DepotCore
import DepotHTTPSource
import DepotJSON
import DepotPlatform
import DepotSources
import DepotTestSupport
import Testing

/// Puts and patches sent to a real HTTP server: which request, which body and headers, and what each status means.
@Suite("HTTPSource: put and patch")
struct HTTPSourceWriteTests {
    static func writable(_ server: HTTPTestServer, patches: Bool = true) throws -> HTTPSource {
        try httpSource(server) {
            $0.putURL = try ItemURLTemplate(parsing: server.url("/items/{id}"))
            if patches { $0.patchURL = try ItemURLTemplate(parsing: server.url("/items/{id}")) }
        }
    }

    static func item(_ text: String) throws -> Item {
        let value = try JSONParser.parse(text)
        return Item(id: ItemCollection.id(of: value, idField: "id") ?? "", json: value.jsonBytes)
    }

    static let merge = ItemPatch.merge(.object(["name": .string("ONE")]))

    @Test(
        "a put is PUT of the item as JSON to the template's URL; 201 says it created the item, 200 and 204 that it replaced one",
        arguments: [(201, true), (200, false), (204, false)])
    func put(status: Int, created: Bool) async throws {
        try await withServer({ _ in .respond(status: status) }) { server in
            let result = try await Self.writable(server).write([SourceChange(.put(try Self.item(#"{"id":"a b","n":1}"#)))], held: nil)
            #expect(result == SourceWriteResult(.relist, created: [created]))
            let request = try #require(server.requests.value.first)
            #expect(request.description == "PUT /items/a%20b")
            #expect(request.header("Content-Type") == "application/json")
            #expect(request.bodyText == #"{"id":"a b","n":1}"#)
            #expect(request.header("If-None-Match") == nil)
        }
    }

    @Test("a put that only creates sends If-None-Match: *, and the server's 412 is a conflict naming the change")
    func ifAbsent() async throws {
        try await withServer({ _ in .respond(status: 412) }) { server in
            let change = SourceChange(.put(try Self.item(#"{"id":1}"#)), expected: .absent)
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.writable(server).write([change], held: nil) })
            #expect(error.kind == .conflict)
            #expect(error.conflict == SourceError.Conflict(index: 0, current: nil))
            #expect(
                error.message
                    == #"PUT \#(server.url("/items/1")) answered 412 Precondition Failed: the server holds another version of item "1"; read it again and redo the change"#
            )
            #expect(server.requests.value.first?.header("If-None-Match") == "*")
        }
    }

    @Test(
        "a patch is PATCH of the patch in its own media type, when a patch URL is set",
        arguments: [
            (ItemPatch.merge(.object(["name": .string("ONE")])), "application/merge-patch+json", #"{"name":"ONE"}"#),
            (
                ItemPatch.jsonPatch(try! JSONPatch(decoding: try! JSONParser.parse(#"[{"op":"replace","path":"/name","value":"ONE"}]"#))),
                "application/json-patch+json", #"[{"op":"replace","path":"/name","value":"ONE"}]"#
            ),
        ])
    func patch(patch: ItemPatch, mediaType: String, body: String) async throws {
        try await withServer({ _ in .respond(status: 200) }) { server in
            // A client's patch with no precondition: the API applies it to what it holds, so nothing is read first.
            let change = SourceChange(
                .put(try Self.item(#"{"id":1,"name":"ONE"}"#)), expected: .item(try Self.item(#"{"id":1,"name":"one"}"#)), patch: patch,
                expectsOnlyBase: true)
            #expect(try await Self.writable(server).write([change], held: nil) == SourceWriteResult(.relist, created: [false]))
            let request = try #require(server.requests.value.first)
            #expect(server.requests.value.count == 1)
            #expect(request.header("If-Match") == nil)
            #expect(request.description == "PATCH /items/1")
            #expect(request.header("Content-Type") == mediaType)
            #expect(request.bodyText == body)
        }
    }

    @Test("without a patch URL, a patch is a PUT of the patched item, conditional on the item it was applied to")
    func patchAsPut() async throws {
        try await withServer({ request in
            request.method == "GET" ? .respond(status: 200, headers: [("ETag", #""v1""#)], body: #"{"name":"one","id":1}"#) : .respond(status: 204)
        }) { server in
            let change = SourceChange(
                .put(try Self.item(#"{"id":1,"name":"ONE"}"#)), expected: .item(try Self.item(#"{"id":1,"name":"one"}"#)), patch: Self.merge,
                expectsOnlyBase: true)
            _ = try await Self.writable(server, patches: false).write([change], held: nil)
            #expect(server.requests.value.map(\.description) == ["GET /items/1", "PUT /items/1"])
            #expect(server.requests.value.last?.bodyText == #"{"id":1,"name":"ONE"}"#)
            #expect(server.requests.value.last?.header("If-Match") == #""v1""#, "members in another order are the same item")
        }
    }

    @Test("a change that must find an item reads it first and sends its ETag as If-Match: the API's 412 is a conflict")
    func ifMatch() async throws {
        try await withServer({ request in
            request.method == "GET" ? .respond(status: 200, headers: [("ETag", #""v1""#)], body: #"{"id":1,"n":1}"#) : .respond(status: 412)
        }) { server in
            let change = SourceChange(.remove(id: "1"), expected: .item(try Self.item(#"{"id":1,"n":1}"#)))
            let source = try httpSource(server) { $0.deleteURL = try ItemURLTemplate(parsing: server.url("/items/{id}")) }
            let error = try #require(await #expect(throws: SourceError.self) { try await source.write([change], held: nil) })
            #expect(error.kind == .conflict)
            #expect(server.requests.value.map(\.description) == ["GET /items/1", "DELETE /items/1"])
            #expect(server.requests.value.last?.header("If-Match") == #""v1""#)
        }
    }

    @Test(
        "another version of the item at the API, or none, is a conflict before anything is sent; without a strong ETag the change goes unconditionally",
        arguments: [
            (200, #"{"id":1,"n":2}"#, nil, #"{"id":1,"n":2}"#), (404, "", nil, nil), (200, #"{"id":1,"n":1}"#, #"W/"v1""#, "sent"),
            (200, #"{"id":1,"n":1}"#, nil, "sent"),
        ] as [(Int, String, String?, String?)])
    func itemRead(status: Int, body: String, etag: String?, outcome: String?) async throws {
        try await withServer({ request in
            request.method == "GET" ? .respond(status: status, headers: etag.map { [("ETag", $0)] } ?? [], body: body) : .respond(status: 200)
        }) { server in
            let change = SourceChange(.put(try Self.item(#"{"id":1,"n":5}"#)), expected: .item(try Self.item(#"{"id":1,"n":1}"#)))
            var result: SourceError?
            do {
                _ = try await Self.writable(server).write([change], held: nil)
            } catch let error as SourceError {
                result = error
            }
            if outcome == "sent" {
                #expect(result == nil)
                #expect(server.requests.value.map(\.description) == ["GET /items/1", "PUT /items/1"])
                #expect(server.requests.value.last?.header("If-Match") == nil)
            } else {
                #expect(result?.kind == .conflict)
                #expect(result?.conflict?.current?.json == outcome.map { Array($0.utf8) })
                #expect(server.requests.value.map(\.description) == ["GET /items/1"])
            }
        }
    }

    @Test(
        "404 and 410 are notFound, 409 a conflict, 5xx a refusal",
        arguments: [
            (404, SourceError.Kind.notFound), (410, .notFound), (409, .conflict), (500, .refused), (422, .refused),
        ])
    func statuses(status: Int, kind: SourceError.Kind) async throws {
        try await withServer({ _ in .respond(status: status) }) { server in
            let change = SourceChange(.put(try Self.item(#"{"id":1}"#)), patch: Self.merge)
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.writable(server).write([change], held: nil) })
            #expect(error.kind == kind)
        }
    }

    @Test("a write whose request reached the server, with no answer back, may have been made: outcomeUnknown, not a refusal")
    func noAnswer() async throws {
        try await withServer({ _ in .close }) { server in
            let change = SourceChange(.put(try Self.item(#"{"id":1}"#)))
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.writable(server).write([change], held: nil) })
            #expect(error.kind == .outcomeUnknown)
            #expect(error.message.contains("which may or may not have made it"))
        }
        try await withServer({ _ in .hang }) { server in
            let source = try httpSource(server) {
                $0.putURL = try ItemURLTemplate(parsing: server.url("/items/{id}"))
                $0.requestTimeout = .milliseconds(500)
            }
            let error = try #require(
                await #expect(throws: SourceError.self) { try await source.write([SourceChange(.put(try Self.item(#"{"id":1}"#)))], held: nil) })
            #expect(error.kind == .outcomeUnknown)
            #expect(error.message.contains("timed out"))
        }
    }

    @Test("a write that found no server to connect to was not made: a refusal to try again")
    func noServer() async throws {
        let refusing = try RefusingPort()
        let source = try httpSource(url: refusing.url("/items")) { $0.putURL = try ItemURLTemplate(parsing: refusing.url("/items/{id}")) }
        let error = try #require(
            await #expect(throws: SourceError.self) { try await source.write([SourceChange(.put(try Self.item(#"{"id":1}"#)))], held: nil) })
        #expect(error.kind == .unavailable)
        #expect(error.message.contains("connection refused"))
    }

    @Test("a write the list held refuses is refused only once the list was read again: the API's other users write too")
    func refusalReadsTheListFirst() async throws {
        let lists = Locked(0)
        try await withServer({ request in
            switch (request.method, request.uri) {
            case ("GET", "/items"):
                // The first list lacks b; someone else made it before the next.
                lists.withLock { count -> Int in
                    count += 1
                    return count
                } == 1
                    ? .respond(status: 200, body: #"[{"id":"a","n":1}]"#) : .respond(status: 200, body: #"[{"id":"a","n":1},{"id":"b","n":2}]"#)
            case ("PATCH", "/items/b"): .respond(status: 200)
            default: .respond(status: 404)
            }
        }) { server in
            let repository = makeRepository(try Self.writable(server))
            _ = try await repository.load().result.get()
            #expect(repository.item(id: "b") == nil)
            _ = try await repository.apply([.patch("b", .merge(["n": 20]))]).result.get()
            #expect(server.requests.value.map(\.description) == ["GET /items", "GET /items", "PATCH /items/b", "GET /items"])
            // An item nobody made: notFound, after the list was read again — and no request to change it.
            let missing = await repository.apply([.patch("z", .merge(["n": 1]))]).result
            guard case .failure(let error) = missing else {
                Issue.record("expected notFound, got \(missing)")
                return
            }
            #expect(error.kind == .notFound)
            #expect(server.requests.value.map(\.description).suffix(2) == ["GET /items", "GET /items"])
        }
    }

    @Test("a batch of more than one change is refused before anything is sent: an API has no transaction across requests")
    func batch() async throws {
        try await withServer({ _ in .respond(status: 204) }) { server in
            let changes = [SourceChange(.put(try Self.item(#"{"id":1}"#))), SourceChange(.remove(id: "2"))]
            let error = try #require(await #expect(throws: SourceError.self) { try await Self.writable(server).write(changes, held: nil) })
            #expect(error.kind == .unsupported)
            #expect(error.message.contains("cannot apply 2 changes at once"))
            #expect(server.requests.value.isEmpty)
        }
    }

    @Test("without a put URL, a put or a patch is refused with what to set, and nothing is sent")
    func noPutURL() async throws {
        try await withServer({ _ in .respond(status: 204) }) { server in
            let source = try httpSource(server)
            for (change, what) in [
                (SourceChange(.put(try Self.item(#"{"id":1}"#))), "puts"),
                (SourceChange(.put(try Self.item(#"{"id":1}"#)), patch: Self.merge), "patches"),
            ] {
                let error = try #require(await #expect(throws: SourceError.self) { try await source.write([change], held: nil) })
                #expect(error.kind == .unsupported)
                #expect(error.message.hasPrefix("\(server.url("/items")) allows no \(what): no URL is set for them; set --put-url"))
            }
            #expect(server.requests.value.isEmpty)
        }
    }

    @Test(
        "through a repository: an optimistic patch is shown, sent as PATCH, and the list read again; a 409 is retried, then rolled back and the list read again"
    )
    func repository() async throws {
        let list = Locked(#"[{"id":1,"name":"one"},{"id":2,"name":"two"}]"#)
        try await withServer({ request in
            switch (request.method, request.uri) {
            case ("PATCH", "/items/1"):
                list.withLock { $0 = #"[{"id":1,"name":"ONE","by":"server"},{"id":2,"name":"two"}]"# }
                return .respond(status: 204)
            case ("PATCH", _): return .respond(status: 409)
            default: return .respond(status: 200, body: list.withLock { $0 })
            }
        }) { server in
            let repository = makeRepository(try Self.writable(server))
            _ = try await repository.load().result.get()
            let written = try await repository.apply([.patch("1", Self.merge)], optimistic: true).result.get()
            #expect(
                repository.item(id: "1").map { String(decoding: $0.json, as: UTF8.self) } == #"{"id":1,"name":"ONE","by":"server"}"#,
                "the list as the server holds it after the write")
            #expect(written.state.state.provenance?.pending == 0)
            let refused = await repository.apply([.patch("2", Self.merge)], optimistic: true).result
            guard case .failure(let error) = refused else {
                Issue.record("expected a conflict")
                return
            }
            #expect(error.kind == .conflict)
            #expect(repository.item(id: "2").map { String(decoding: $0.json, as: UTF8.self) } == #"{"id":2,"name":"two"}"#, "rolled back")
            // A patch made to whatever is there is applied again to the item read anew, three times, before it fails; then
            // the list is read again, since the server holds what depotd does not.
            let retries = Array(repeating: ["GET /items", "PATCH /items/2"], count: 3).flatMap { $0 }
            let expected = ["GET /items", "PATCH /items/1", "GET /items", "PATCH /items/2"] + retries + ["GET /items"]
            try await withTimeout(.seconds(30), "the list read again") { await server.requests.wait { $0.count >= expected.count } }
            #expect(server.requests.value.map(\.description) == expected)
        }
    }
}
