import DepotCore
import DepotHTTPSource
import DepotSources
import DepotTestSupport
import Testing

@Suite("HTTPSource: what a real server's answers say of their freshness")
struct HTTPSourceFreshnessTests {
    @Test("a 200 states its lifetime from Cache-Control; a 304 with none leaves it unstated; one with max-age states it")
    func lifetimes() async throws {
        try await withServer({ request in
            if request.header("If-None-Match") == #""v1""# {
                return request.uri.hasSuffix("?fresh") ? .respond(status: 304, headers: [("Cache-Control", "max-age=30")]) : .respond(status: 304)
            }
            return .respond(status: 200, headers: [("ETag", #""v1""#), ("Cache-Control", "max-age=60")], body: threeItems)
        }) { server in
            let source = try httpSource(server)
            let first = try await source.fetch(ifChangedSince: nil)
            #expect(first.lifetime == FreshnessLifetime(.seconds(60), from: .maxAge))
            guard case .items(_, let version?) = first.listing else {
                Issue.record("expected items with a version, got \(first.listing)")
                return
            }
            let second = try await source.fetch(ifChangedSince: version)
            #expect(second == SourceAnswer(.unchanged, lifetime: nil))
            let third = try await httpSource(server, "/items?fresh").fetch(ifChangedSince: version)
            #expect(third == SourceAnswer(.unchanged, lifetime: FreshnessLifetime(.seconds(30), from: .maxAge)))
        }
    }

    @Test("a 503 with Retry-After fails with the delay it asks for, and the message says so")
    func retryAfter() async throws {
        try await withServer({ _ in .respond(status: 503, headers: [("Retry-After", "120")]) }) { server in
            let error = try #require(await #expect(throws: SourceError.self) { _ = try await httpSource(server).fetch(ifChangedSince: nil) })
            #expect(error.retryAfter == .seconds(120))
            #expect(error.message.contains("503 Service Unavailable (it asks to be asked again in 120 s: Retry-After)"))
        }
    }
}
