#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// How the source has answered lately, as the repository saw it: when it was last asked for the items, when it last
/// confirmed them (an answer that nothing changed included), how many asks in a row failed and since when, the last
/// error, and the lifetime its last answer stated. `stats` shows it; the refresh schedule follows it.
public struct SourceHealth: Sendable, Equatable {
    public internal(set) var lastAttemptAt: Date?
    /// The last time the source gave the items or said they had not changed.
    public internal(set) var lastSuccessAt: Date?
    public internal(set) var consecutiveFailures = 0
    /// When the current run of failures began; nil while the source answers.
    public internal(set) var failingSince: Date?
    /// The message of the last failure, kept after the source answers again (the count says whether it still fails).
    public internal(set) var lastError: String?
    /// The lifetime the last answer that stated one gave (see `FreshnessLifetime`); nil when none has.
    public internal(set) var lifetime: FreshnessLifetime?

    public init() {}

    mutating func attempted(at date: Date) {
        lastAttemptAt = date
    }

    mutating func answered(at date: Date, lifetime stated: FreshnessLifetime?) {
        lastSuccessAt = date
        consecutiveFailures = 0
        failingSince = nil
        if let stated { lifetime = stated }
    }

    mutating func failed(at date: Date, message: String) {
        consecutiveFailures += 1
        if failingSince == nil { failingSince = date }
        lastError = message
    }
}

/// What the repository tells those that keep its items fresh (`Repository.addActivityObserver`): every time the
/// source was asked for the items and how that went, and when what was known of the source stopped holding.
public enum SourceActivity: Sendable, Equatable {
    /// The source answered: the items, what changed, or that nothing did. `lifetime` as the answer stated it; nil
    /// when it stated none of its own.
    case answered(lifetime: FreshnessLifetime?)
    /// The source could not be asked, or its answer could not be used (`message` says why); `retryAfter` when it
    /// asked not to be asked again for a while.
    case failed(message: String, retryAfter: Duration?)
    /// The items were dropped (a wipe), or another source replaced this one: nothing is left to keep fresh until
    /// the next load, and nothing known of the old source holds.
    case reset
}
