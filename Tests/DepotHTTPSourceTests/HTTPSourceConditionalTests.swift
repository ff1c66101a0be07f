import DepotCore
import DepotHTTPSource
import DepotJSON
import DepotSources
import DepotTestSupport
import Logging
import Testing

@Suite("HTTPSource: conditional GET")
struct HTTPSourceConditionalTests {
    /// A server with one version of the list: 304 when the request names it, else 200 with both validators.
    static func versioned(
        etag: String = #""v1""#, lastModified: String = "Wed, 21 Oct 2015 07:28:00 GMT"
    ) -> @Sendable (HTTPTestServer.Request) -> HTTPTestServer.Reply {
        { request in
            if request.header("If-None-Match") == etag {
                return .respond(status: 304, headers: [("ETag", etag)])
            }
            return .respond(status: 200, headers: [("ETag", etag), ("Last-Modified", lastModified)], body: threeItems)
        }
    }

    @Test("a 200 gives the ETag and Last-Modified; the next GET sends them, and a 304 is unchanged")
    func roundTrip() async throws {
        try await withServer(Self.versioned()) { server in
            let source = try httpSource(server)
            let first = try await source.fetchItems(ifChangedSince: nil)
            let version = try #require(
                SourceVersion(
                    etag: #""v1""#, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", digest: ContentDigest.of(Array(threeItems.utf8))))
            #expect(first == .items(try JSONParser.parse(threeItems).arrayValue!, version: version))

            let second = try await source.fetchItems(ifChangedSince: version)
            #expect(second == .unchanged)

            let requests = server.requests.value
            #expect(requests.count == 2)
            #expect(requests[0].header("If-None-Match") == nil)
            #expect(requests[0].header("If-Modified-Since") == nil)
            #expect(requests[1].header("If-None-Match") == #""v1""#)
            #expect(requests[1].header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        }
    }

    @Test("a changed list is a 200 with the new items and the new version")
    func changed() async throws {
        try await withServer(Self.versioned(etag: #"W/"v2""#)) { server in
            let old = try #require(SourceVersion(etag: #""v1""#, lastModified: nil))
            let listing = try await httpSource(server).fetchItems(ifChangedSince: old)
            guard case .items(let items, let version) = listing else {
                Issue.record("expected items, got \(listing)")
                return
            }
            #expect(items.count == 3)
            #expect(version?.etag == #"W/"v2""#)
            #expect(server.requests.value.first?.header("If-None-Match") == #""v1""#)
        }
    }

    @Test("without validators the version is the body's digest: the same body again is unchanged, another is read")
    func noValidators() async throws {
        let body = Condition("[]")
        try await withServer({ _ in .respond(status: 200, body: body.value) }) { server in
            let source = try httpSource(server)
            let listing = try await source.fetchItems(ifChangedSince: nil)
            let version = try #require(SourceVersion(digest: ContentDigest.of(Array("[]".utf8))))
            #expect(listing == .items([], version: version))
            #expect(version.etag == nil && version.lastModified == nil)

            #expect(try await source.fetchItems(ifChangedSince: version) == .unchanged, "the same bytes: nothing to parse")
            #expect(server.requests.value.allSatisfy { $0.header("If-None-Match") == nil && $0.header("If-Modified-Since") == nil })

            body.update { $0 = #"[{"id": 1}]"# }
            guard case .items(let items, let newVersion) = try await source.fetchItems(ifChangedSince: version) else {
                Issue.record("a different body must be read")
                return
            }
            #expect(items.count == 1)
            #expect(newVersion?.digest == ContentDigest.of(Array(#"[{"id": 1}]"#.utf8)))
        }
    }

    @Test("a 304 to a GET that named no version is a failure, not an empty success")
    func unaskedNotModified() async throws {
        try await withServer({ _ in .respond(status: 304) }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetchItems(ifChangedSince: nil) })
            #expect(error.message.hasPrefix("GET \(server.url("/items")) answered 304 Not Modified"))
        }
    }

    @Test("through a repository: the second load sends If-None-Match, gets 304, and publishes the same items again")
    func repository() async throws {
        try await withServer(Self.versioned()) { server in
            let repository = Repository(source: try httpSource(server), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
                .running()
            let recorder = StateRecorder()
            repository.addObserver(recorder)
            let first = try await repository.load().result.get()
            let second = try await repository.load().result.get()
            #expect(second.state.items == first.state.items, "the same items")
            #expect(second.state.provenance?.origin == .source)
            #expect(second.seq == first.seq + 2)
            #expect(recorder.statuses == [.idle, .loading, .success, .loading, .success])
            #expect(server.requests.value.map { $0.header("If-None-Match") } == [nil, #""v1""#])
            #expect(repository.sourceVersion?.etag == #""v1""#)
        }
    }
}
