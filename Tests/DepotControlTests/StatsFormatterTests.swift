import DepotControl
import DepotJSON
import DepotWire
import Testing

@Suite("StatsFormatter and the stats answer")
struct StatsFormatterTests {
    static let stats = DepotStatistics(
        epoch: "3f2a9c0d1e4b5a67", seq: 42, status: "success", items: 151, uptimeSeconds: 3725, connections: 3,
        users: [
            .init(uid: 0, connections: 1, subscriptions: 0, memoryBytes: 0, queuedMutations: 0),
            .init(uid: 1000, connections: 2, subscriptions: 1, memoryBytes: 20480, queuedMutations: 2),
        ],
        subscriptions: [
            .init(subscription: "s1", uid: 1000, mode: .delta, pipeline: "name:open", queuedStates: 3, queuedBytes: 1536, skipped: 7, sent: 41)
        ],
        source: "file:/var/lib/depot/items.json",
        fetches: .init(calls: 3, failures: 0, lastMicroseconds: 1250, p50Microseconds: 1250, p99Microseconds: 2400, maxMicroseconds: 2400),
        deletes: .init(calls: 0, failures: 0), cacheBytes: 49152, residentBytes: 18_874_368, openFiles: 14, unfinishedLineBytes: 0,
        limitsHit: [.init(limit: "maxConnections", count: 0), .init(limit: "maxSubscriptions", count: 2)])

    @Test("the answer's JSON decodes to what was encoded")
    func roundTrip() throws {
        let text = Self.stats.json.jsonText
        #expect(try DepotStatistics(decoding: JSONParser.parse(text)) == Self.stats)
        #expect(!text.contains("lastMicroseconds\":null"), "absent values are left out")
    }

    @Test("a wrong answer is refused, naming the member")
    func wrongAnswer() throws {
        var json = Self.stats.json
        if case .object(var object) = json {
            object["users"] = .string("none")
            json = .object(object)
        }
        #expect(throws: WireDecodingError.self) { try DepotStatistics(decoding: json) }
    }

    @Test("for people: the state and process, the source, a table of users, one of subscriptions, the limits reached")
    func text() {
        #expect(
            StatsFormatter.text(Self.stats) == """
                seq 42 success, 151 items · epoch 3f2a9c0d1e4b5a67 · up 1h2m · 3 connections · 18.0 MiB resident · 14 open files · cache 48.0 KiB
                source file:/var/lib/depot/items.json · fetches 3 p50 1.3 ms p99 2.4 ms max 2.4 ms · deletes 0 · writes 0

                UID   CONNECTIONS  SUBSCRIPTIONS  MEMORY    QUEUED
                0     1            0              0 B       0
                1000  2            1              20.0 KiB  2

                SUBSCRIPTION  UID   MODE   QUEUED  BYTES    SKIPPED  SENT  PIPELINE
                s1            1000  delta  3       1.5 KiB  7        41    name:open

                limits reached: maxSubscriptions 2
                """)
    }

    @Test("a source reading a replica: where, and how far behind, in the text and as a gauge; the primary, 0 behind")
    func replica() throws {
        var stats = Self.stats
        stats.source = "postgres://depot@db:5432/fleet?table=items"
        stats.readsFrom = "postgres://depot@standby:5432/fleet?table=items"
        for (lag, text, gauge) in [(0.25, "250 ms", "0.25"), (7.2, "7.2 s", "7.2"), (7200, "2 h", "7200.0"), (0, "0 ms", "0.0")] {
            stats.readLagSeconds = lag
            #expect(try DepotStatistics(decoding: JSONParser.parse(stats.json.jsonText)) == stats)
            #expect(StatsFormatter.text(stats).contains("(reads from postgres://depot@standby:5432/fleet?table=items, \(text) behind) · fetches"))
            #expect(
                StatsFormatter.prometheus(stats).contains(
                    #"depot_source_read_lag_seconds{reader="postgres://depot@standby:5432/fleet?table=items"} \#(gauge)"#))
        }
        stats.readsFrom = stats.source
        stats.readLagSeconds = nil
        #expect(!stats.json.jsonText.contains("readLag"))
        #expect(StatsFormatter.text(stats).contains("(reads from postgres://depot@db:5432/fleet?table=items) · fetches"))
        #expect(StatsFormatter.prometheus(stats).contains(#"depot_source_read_lag_seconds{reader="postgres://depot@db:5432/fleet?table=items"} 0"#))
        #expect(!StatsFormatter.prometheus(Self.stats).contains("read_lag"), "without replicas, no gauge")
    }

    @Test("for Prometheus: every figure a depot_ metric with HELP and TYPE, labels escaped")
    func prometheus() {
        let text = StatsFormatter.prometheus(Self.stats)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("depot_states_published_total 42"))
        #expect(lines.contains(#"depot_user_memory_bytes{uid="1000"} 20480"#))
        #expect(lines.contains(#"depot_subscription_skipped_states_total{subscription="s1",uid="1000"} 7"#))
        #expect(lines.contains(#"depot_source_call_duration_seconds{call="fetch",quantile="0.99"} 0.002400"#))
        #expect(lines.contains(#"depot_limit_reached_total{limit="maxSubscriptions"} 2"#))
        #expect(lines.contains("# TYPE depot_source_calls_total counter"))
        // Every sample line belongs to a metric declared just before.
        var declared: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") { declared.insert(String(line.split(separator: " ")[2])) }
            if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(declared.contains(name), "\(line)")
            }
        }
    }

    @Test("sizes and durations read as people write them")
    func units() {
        #expect(StatsFormatter.text(Self.stats).contains("18.0 MiB"))
    }
}
