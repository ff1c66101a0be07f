import DepotControl
import DepotCore
import DepotJSON
import DepotPlatform
import DepotWire
import Foundation
import Testing

@testable import DepotControl

/// How depotctl shows freshness: `status`'s one line, `stats`' refresh line and metrics, from a stats answer.
@Suite("depotctl: freshness in status and stats")
struct FreshnessOutputTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// `seconds` before (negative: after) `now`, as the wire writes times.
    static func at(_ seconds: Double) -> String {
        RFC3339.string(from: now.addingTimeInterval(-seconds))
    }

    static func stats(status: String = "success", items: Int? = 151, stale: Bool? = false, refresh: DepotStatistics.Refresh?) -> DepotStatistics {
        var stats = DepotStatistics(
            epoch: "3f2a9c0d1e4b5a67", seq: 4, status: status, items: items, stale: stale, uptimeSeconds: 60, connections: 1, users: [],
            subscriptions: [], source: "https://api.example.com/items", fetches: .init(calls: 2, failures: 0), deletes: .init(calls: 0, failures: 0),
            cacheBytes: nil, residentBytes: nil, openFiles: nil, unfinishedLineBytes: 0, limitsHit: [])
        stats.refresh = refresh
        return stats
    }

    @Test("fresh: when the source last answered and when it is asked next")
    func fresh() {
        let stats = Self.stats(refresh: .init(intervalSeconds: 60, intervalFrom: "max-age", nextRefreshAt: Self.at(-48), lastSuccessAt: Self.at(12)))
        #expect(StatusCommand.line(stats, now: Self.now) == "success · 151 items · fresh · checked 12 s ago · next in 48 s · seq 4")
    }

    @Test("stale: since when, why, and when the retry comes")
    func stale() {
        var stats = Self.stats(
            stale: true,
            refresh: .init(
                intervalSeconds: 60, intervalFrom: "max-age", nextRefreshAt: Self.at(-8), retrying: true, lastSuccessAt: Self.at(600),
                consecutiveFailures: 3, failingSince: Self.at(130), lastError: "GET … answered 503"))
        stats.staleReason = "GET https://api.example.com/items answered 503 Service Unavailable"
        #expect(
            StatusCommand.line(stats, now: Self.now)
                == "success · 151 items · stale since 2 min ago (GET https://api.example.com/items answered 503 Service Unavailable) · retry in 8 s · seq 4"
        )
    }

    @Test("a watched file, a paused schedule, a failure with no items, and a depotd that says nothing of freshness")
    func others() {
        let watched = Self.stats(
            refresh: .init(intervalSeconds: nil, intervalFrom: "source", lastSuccessAt: Self.at(7200), watchedFile: "/srv/items.json"))
        #expect(StatusCommand.line(watched, now: Self.now) == "success · 151 items · fresh · checked 2 h ago · watching the file · seq 4")
        let paused = Self.stats(refresh: .init(intervalSeconds: 60, intervalFrom: "setting", paused: true, lastSuccessAt: Self.at(0.2)))
        #expect(
            StatusCommand.line(paused, now: Self.now) == "success · 151 items · fresh · checked just now · refresh waits for a subscriber · seq 4")
        let failed = Self.stats(
            status: "failure", items: nil, stale: nil,
            refresh: .init(intervalSeconds: nil, intervalFrom: "not yet known", nextRefreshAt: Self.at(-4), retrying: true, lastError: "refused"))
        #expect(StatusCommand.line(failed, now: Self.now) == "failure · refused · retry in 4 s · seq 4")
        let retryingNow = Self.stats(
            status: "failure", items: nil, stale: nil,
            refresh: .init(intervalSeconds: nil, intervalFrom: "not yet known", nextRefreshAt: Self.at(0.3), retrying: true, lastError: "refused"))
        #expect(StatusCommand.line(retryingNow, now: Self.now) == "failure · refused · retry due now · seq 4", "a time, not an order")
        #expect(StatusCommand.line(Self.stats(refresh: nil), now: Self.now) == "success · 151 items · fresh · seq 4")
    }

    @Test("stats: the refresh line, and the answer's JSON decodes to what was encoded")
    func statsText() throws {
        let stats = Self.stats(
            refresh: .init(
                intervalSeconds: 2.5, intervalFrom: "setting", nextRefreshAt: Self.at(-1), retrying: true, lastAttemptAt: Self.at(1),
                lastSuccessAt: Self.at(90), consecutiveFailures: 2, failingSince: Self.at(60), lastError: "down", watchProblem: nil))
        #expect(
            StatsFormatter.refresh(try #require(stats.refresh), now: Self.now)
                == "refresh every 2.5 s (setting) · retry in 1 s · last answer 1 min ago · 2 failures since 1 min ago, the last: down")
        let text = stats.json.jsonText
        #expect(text.contains(#""interval":2.5,"intervalFrom":"setting""#))
        #expect(try DepotStatistics(decoding: JSONParser.parse(text)) == stats)
    }

    @Test("Prometheus: the interval, the next refresh and the last answer as timestamps, the failures, whether a file is watched")
    func prometheus() {
        let stats = Self.stats(
            refresh: .init(intervalSeconds: 60, intervalFrom: "max-age", nextRefreshAt: Self.at(-48), lastSuccessAt: Self.at(12), watchedFile: "/f"))
        let text = StatsFormatter.prometheus(stats)
        #expect(text.contains(#"depot_source_refresh_interval_seconds{from="max-age"} 60.000000"#))
        #expect(text.contains("depot_source_next_refresh_timestamp_seconds 1795000048.000000"))
        #expect(text.contains("depot_source_last_success_timestamp_seconds 1794999988.000000"))
        #expect(text.contains("depot_source_consecutive_failures 0"))
        #expect(text.contains("depot_source_file_watched 1"))
    }
}
