import DepotCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What an HTTP response says of its own freshness (RFC 9111) and of when to ask again after it refused: read by
/// the HTTP source, followed by `--refresh-interval auto` and the retry schedule.
enum ResponseFreshness {
    /// How long the response stays fresh from now: `no-store` or `no-cache` give none; else `s-maxage` (depotd shares
    /// one answer among its clients, as a shared cache does), else `max-age`, else `Expires` − `Date` (the time it
    /// was received when it has no `Date`; an invalid `Expires`, such as `0`, has already expired); each less the
    /// response's `Age` (the time it spent in caches before it reached depotd). None of them: no lifetime.
    ///
    /// nil for a revalidation (a `304 Not Modified`) that states none of these: the lifetime of the answer it
    /// confirms stays in force.
    static func lifetime(of headers: HTTPHeaders, receivedAt now: Date, isRevalidation: Bool = false) -> FreshnessLifetime? {
        let cacheControl = CacheControl(fields: headers["Cache-Control"])
        let expires = headers.first(name: "Expires")
        if isRevalidation, cacheControl.directives.isEmpty, expires == nil { return nil }
        if cacheControl.contains("no-store") { return .noRefresh(.noStore) }
        if cacheControl.contains("no-cache") { return .noRefresh(.noCache) }
        let age = Duration.seconds(cacheControl.secondsLike(headers.first(name: "Age")) ?? 0)
        if let seconds = cacheControl.seconds("s-maxage") {
            return FreshnessLifetime(.seconds(seconds) - age, from: .sharedMaxAge)
        }
        if let seconds = cacheControl.seconds("max-age") {
            return FreshnessLifetime(.seconds(seconds) - age, from: .maxAge)
        }
        if let expires {
            guard let expiry = HTTPDate.parse(expires, now: now) else { return .noRefresh(.expires) }
            let date = headers.first(name: "Date").flatMap { HTTPDate.parse($0, now: now) } ?? now
            return FreshnessLifetime(.seconds(expiry.timeIntervalSince(date).rounded(.down)) - age, from: .expires)
        }
        return .noRefresh(.unstated)
    }

    /// How long a refusing server (429 Too Many Requests, 503 Service Unavailable) asked not to be asked again:
    /// `Retry-After` as seconds, or as an HTTP date counted from the response's `Date` (else from now), so the two
    /// clocks need not agree. nil for other statuses, without the header, or when it cannot be read.
    static func retryAfter(status: HTTPResponseStatus, headers: HTTPHeaders, receivedAt now: Date) -> Duration? {
        guard status == .tooManyRequests || status == .serviceUnavailable, let value = headers.first(name: "Retry-After") else { return nil }
        let text = String(value.trimmingOptionalWhitespace())
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return .seconds(Int64(text) ?? Int64(Int32.max))
        }
        guard let date = HTTPDate.parse(text, now: now) else { return nil }
        let base = headers.first(name: "Date").flatMap { HTTPDate.parse($0, now: now) } ?? now
        return .seconds(max(0, date.timeIntervalSince(base).rounded(.up)))
    }
}

extension CacheControl {
    /// The `Age` header's delta-seconds, read as `Cache-Control`'s are.
    fileprivate func secondsLike(_ age: String?) -> Int64? {
        guard let age else { return nil }
        return CacheControl(fields: ["age=\(age.trimmingOptionalWhitespace())"]).seconds("age")
    }
}
