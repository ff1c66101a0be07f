import DepotCore
import Foundation
import NIOHTTP1
import Testing

@testable import DepotHTTPSource

@Suite("ResponseFreshness: a response's lifetime and its Retry-After, as RFC 9111 and 9110 read them")
struct ResponseFreshnessTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let nowText = "Wed, 18 Nov 2026 11:06:40 GMT"

    static func lifetime(_ headers: [(String, String)], revalidation: Bool = false) -> FreshnessLifetime? {
        ResponseFreshness.lifetime(of: HTTPHeaders(headers), receivedAt: now, isRevalidation: revalidation)
    }

    @Test("max-age, less the Age the response spent in caches")
    func maxAge() {
        #expect(Self.lifetime([("Cache-Control", "public, max-age=60")]) == FreshnessLifetime(.seconds(60), from: .maxAge))
        #expect(Self.lifetime([("Cache-Control", "max-age=60"), ("Age", "50")]) == FreshnessLifetime(.seconds(10), from: .maxAge))
        #expect(Self.lifetime([("cache-control", "MAX-AGE = \"30\"")]) == FreshnessLifetime(.seconds(30), from: .maxAge), "names ignore case; quoted")
    }

    @Test("s-maxage before max-age: depotd shares one answer among many clients, as a shared cache does")
    func sharedMaxAge() {
        #expect(Self.lifetime([("Cache-Control", "max-age=60, s-maxage=300")]) == FreshnessLifetime(.seconds(300), from: .sharedMaxAge))
    }

    @Test("Expires − Date; without Date, from when it was received; an invalid Expires has already expired")
    func expires() {
        #expect(
            Self.lifetime([("Expires", "Wed, 18 Nov 2026 11:08:40 GMT"), ("Date", "Wed, 18 Nov 2026 11:06:00 GMT")])
                == FreshnessLifetime(.seconds(160), from: .expires), "counted from the server's Date, whatever depotd's clock says")
        #expect(Self.lifetime([("Expires", "Wed, 18 Nov 2026 11:07:40 GMT")]) == FreshnessLifetime(.seconds(60), from: .expires))
        #expect(Self.lifetime([("Expires", "0")]) == .noRefresh(.expires))
        #expect(Self.lifetime([("Expires", "Wed, 18 Nov 2026 11:00:00 GMT")]) == .noRefresh(.expires), "in the past")
        #expect(
            Self.lifetime([("Expires", "Wed, 18 Nov 2026 11:07:40 GMT"), ("Cache-Control", "max-age=5")])
                == FreshnessLifetime(.seconds(5), from: .maxAge),
            "max-age wins over Expires")
    }

    @Test("no-cache, no-store and max-age=0 give no lifetime, whatever else is said; no header at all gives none either")
    func none() {
        #expect(Self.lifetime([("Cache-Control", "max-age=60, no-cache")]) == .noRefresh(.noCache))
        #expect(Self.lifetime([("Cache-Control", "no-store"), ("Expires", "Wed, 18 Nov 2026 12:00:00 GMT")]) == .noRefresh(.noStore))
        #expect(Self.lifetime([("Cache-Control", "max-age=0")]) == .noRefresh(.maxAge))
        #expect(Self.lifetime([("Cache-Control", "max-age=oops")]) == .noRefresh(.unstated))
        #expect(Self.lifetime([]) == .noRefresh(.unstated))
        #expect(
            Self.lifetime([("Cache-Control", #"private="a, b", max-age=7"#)]) == FreshnessLifetime(.seconds(7), from: .maxAge), "commas in quotes")
    }

    @Test("a 304 that states nothing leaves the lifetime as it was; one that states a lifetime brings it")
    func revalidation() {
        #expect(Self.lifetime([("ETag", "\"v1\"")], revalidation: true) == nil)
        #expect(Self.lifetime([("Cache-Control", "max-age=90")], revalidation: true) == FreshnessLifetime(.seconds(90), from: .maxAge))
    }

    static func retryAfter(_ status: HTTPResponseStatus, _ headers: [(String, String)]) -> Duration? {
        ResponseFreshness.retryAfter(status: status, headers: HTTPHeaders(headers), receivedAt: now)
    }

    @Test("Retry-After in seconds, or as a date counted from the response's Date, on 429 and 503 only")
    func retry() {
        #expect(Self.retryAfter(.serviceUnavailable, [("Retry-After", "120")]) == .seconds(120))
        #expect(Self.retryAfter(.tooManyRequests, [("Retry-After", " 7 ")]) == .seconds(7))
        #expect(
            Self.retryAfter(.serviceUnavailable, [("Retry-After", "Wed, 18 Nov 2026 11:10:00 GMT"), ("Date", "Wed, 18 Nov 2026 11:09:00 GMT")])
                == .seconds(60), "from the server's Date: the clocks need not agree")
        #expect(Self.retryAfter(.serviceUnavailable, [("Retry-After", "Wed, 18 Nov 2026 11:07:10 GMT")]) == .seconds(30), "else from now")
        #expect(Self.retryAfter(.serviceUnavailable, [("Retry-After", "Wed, 18 Nov 2026 11:00:00 GMT")]) == .zero)
        #expect(Self.retryAfter(.internalServerError, [("Retry-After", "120")]) == nil)
        #expect(Self.retryAfter(.serviceUnavailable, []) == nil)
        #expect(Self.retryAfter(.serviceUnavailable, [("Retry-After", "soon")]) == nil)
    }
}
