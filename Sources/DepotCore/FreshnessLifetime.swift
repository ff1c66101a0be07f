/// How long a source says its answer stays fresh, and what said so: an HTTP response's `Cache-Control: max-age`
/// (less its `Age`), or `Expires` − `Date`; or that it gave none (`no-cache`, `no-store`, or no such header), so the
/// answer is not refreshed on a timer.
///
/// Only `--refresh-interval auto` follows it; an interval set by the user overrides it.
public struct FreshnessLifetime: Sendable, Hashable, CustomStringConvertible {
    /// What the lifetime was read from, named as the header or directive says it.
    public enum Origin: String, Sendable, CaseIterable {
        /// `Cache-Control: s-maxage=N`: the lifetime for a shared cache, which depotd is (many clients, one answer).
        case sharedMaxAge = "s-maxage"
        /// `Cache-Control: max-age=N`.
        case maxAge = "max-age"
        /// `Expires` − `Date`.
        case expires = "Expires"
        /// `Cache-Control: no-store`: not to be kept, so not refreshed either.
        case noStore = "no-store"
        /// `Cache-Control: no-cache`: to be revalidated on every use, which a timer cannot honour.
        case noCache = "no-cache"
        /// None of these headers: the answer says nothing of its lifetime.
        case unstated = "no lifetime"
    }

    /// How long the answer stays fresh from when it arrived; nil when it gives no lifetime (or one of zero).
    public let duration: Duration?
    public let origin: Origin

    /// A lifetime of `duration` from `origin`; one of zero or less is none (`max-age=0` means "revalidate every
    /// time", which a refresh timer cannot honour without polling without pause).
    public init(_ duration: Duration?, from origin: Origin) {
        self.duration = duration.flatMap { $0 > .zero ? $0 : nil }
        self.origin = origin
    }

    /// The answer gives no lifetime, for this reason.
    public static func noRefresh(_ origin: Origin) -> FreshnessLifetime {
        FreshnessLifetime(nil, from: origin)
    }

    /// `max-age 60 s`, `no-cache`.
    public var description: String {
        duration.map { "\(origin.rawValue) \($0.components.seconds) s" } ?? origin.rawValue
    }
}
