import DepotPlatform
package import DepotWire

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Turns `stats` into depotctl's output: a few lines and two tables for people, or Prometheus's text exposition
/// format for a scraper (node_exporter's textfile collector, say).
package enum StatsFormatter {
    /// The human form: the state and the process, the source's calls and how it is kept fresh, a table of users and
    /// one of subscriptions, and the limits that were reached. Relative times count from `now`.
    package static func text(_ stats: DepotStatistics, now: Date = Date()) -> String {
        var lines: [String] = []
        let items = stats.items.map { ", \($0) item\($0 == 1 ? "" : "s")" } ?? ""
        var process = ["up \(duration(seconds: stats.uptimeSeconds))", "\(stats.connections) connection\(stats.connections == 1 ? "" : "s")"]
        if let resident = stats.residentBytes { process.append("\(bytes(resident)) resident") }
        if let files = stats.openFiles { process.append("\(files) open files") }
        if let cache = stats.cacheBytes { process.append("cache \(bytes(cache))") }
        lines.append("seq \(stats.seq) \(stats.status)\(items) · epoch \(stats.epoch) · " + process.joined(separator: " · "))
        lines.append(
            "source \(stats.source)\(stats.readsFrom.map { " (reads from \($0)\(Self.lag(stats.readLagSeconds)))" } ?? "") · fetches \(calls(stats.fetches)) · deletes \(calls(stats.deletes)) · writes \(calls(stats.writes))"
                + (stats.pendingWrites > 0 ? " · \(stats.pendingWrites) pending" : ""))
        if let refresh = stats.refresh {
            lines.append(Self.refresh(refresh, now: now))
        }
        if stats.unfinishedLineBytes > 0 {
            lines.append("unfinished lines hold \(bytes(stats.unfinishedLineBytes))")
        }
        if stats.pipelines > 0 || stats.parkedConnections > 0 {
            lines.append(
                "\(stats.pipelines) pipeline\(stats.pipelines == 1 ? "" : "s") running · \(stats.parkedConnections) connection\(stats.parkedConnections == 1 ? "" : "s") parked (sockets full)"
            )
        }
        lines.append("")
        lines += table(
            ["UID", "CONNECTIONS", "SUBSCRIPTIONS", "MEMORY", "QUEUED"],
            stats.users.map { user in
                [
                    user.uid.map(String.init) ?? "-", "\(user.connections)", "\(user.subscriptions)", bytes(user.memoryBytes),
                    "\(user.queuedMutations)",
                ]
            })
        if !stats.subscriptions.isEmpty {
            lines.append("")
            lines += table(
                ["SUBSCRIPTION", "UID", "MODE", "QUEUED", "BYTES", "SKIPPED", "SENT", "PIPELINE"],
                stats.subscriptions.map { entry in
                    [
                        entry.subscription, entry.uid.map(String.init) ?? "-", entry.mode.rawValue, "\(entry.queuedStates)",
                        bytes(entry.queuedBytes), "\(entry.skipped)", "\(entry.sent)", entry.pipeline ?? "-",
                    ]
                })
        }
        lines.append("")
        let reached = stats.limitsHit.filter { $0.count > 0 }
        lines.append("limits reached: " + (reached.isEmpty ? "none" : reached.map { "\($0.limit) \($0.count)" }.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }

    /// Prometheus's text exposition format, every metric named `depot_…`.
    package static func prometheus(_ stats: DepotStatistics) -> String {
        var output: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            output.append("# HELP depot_\(name) \(help)")
            output.append("# TYPE depot_\(name) \(type)")
            for sample in samples {
                let labels = sample.labels.isEmpty ? "" : "{" + sample.labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",") + "}"
                output.append("depot_\(name)\(labels) \(sample.value)")
            }
        }
        func one(_ value: Int) -> [(labels: [(String, String)], value: String)] { [([], "\(value)")] }
        metric("states_published_total", "counter", "States published since depotd started (the current seq).", one(stats.seq))
        if let items = stats.items { metric("items", "gauge", "Items in the current success state.", one(items)) }
        metric("uptime_seconds", "gauge", "Seconds since depotd started.", one(stats.uptimeSeconds))
        metric("connections", "gauge", "Connections open.", one(stats.connections))
        let users = stats.users.map { user in [("uid", user.uid.map(String.init) ?? "")] }
        metric("user_connections", "gauge", "Connections open, by uid.", zip(users, stats.users).map { ($0, "\($1.connections)") })
        metric("user_subscriptions", "gauge", "Active subscriptions, by uid.", zip(users, stats.users).map { ($0, "\($1.subscriptions)") })
        metric(
            "user_memory_bytes", "gauge", "Bytes a uid's connections hold in depotd (bounded by --max-memory-per-user).",
            zip(users, stats.users).map { ($0, "\($1.memoryBytes)") })
        metric(
            "user_queued_mutations", "gauge", "Mutations waiting their turn, by uid.", zip(users, stats.users).map { ($0, "\($1.queuedMutations)") })
        let subscriptions = stats.subscriptions.map { entry in [("subscription", entry.subscription), ("uid", entry.uid.map(String.init) ?? "")] }
        metric(
            "subscription_queued_states", "gauge", "States queued for a subscription.",
            zip(subscriptions, stats.subscriptions).map { ($0, "\($1.queuedStates)") })
        metric(
            "subscription_queued_bytes", "gauge", "Bytes queued for a subscription.",
            zip(subscriptions, stats.subscriptions).map { ($0, "\($1.queuedBytes)") })
        metric(
            "subscription_skipped_states_total", "counter", "States a subscription was told it skipped.",
            zip(subscriptions, stats.subscriptions).map { ($0, "\($1.skipped)") })
        metric(
            "subscription_notifications_total", "counter", "Notifications written to a subscription.",
            zip(subscriptions, stats.subscriptions).map { ($0, "\($1.sent)") })
        let kinds = [("fetch", stats.fetches), ("delete", stats.deletes), ("write", stats.writes)]
        metric("source_calls_total", "counter", "Calls to the source.", kinds.map { ([("call", $0.0)], "\($0.1.calls)") })
        metric("source_failures_total", "counter", "Calls to the source that failed.", kinds.map { ([("call", $0.0)], "\($0.1.failures)") })
        var durations: [(labels: [(String, String)], value: String)] = []
        for (kind, calls) in kinds {
            for (quantile, value) in [("0.5", calls.p50Microseconds), ("0.99", calls.p99Microseconds), ("1", calls.maxMicroseconds)] {
                if let value { durations.append(([("call", kind), ("quantile", quantile)], seconds(microseconds: value))) }
            }
        }
        metric("source_call_duration_seconds", "summary", "How long the source's calls took (the latest 1024; quantile 1 is the longest).", durations)
        if let reader = stats.readsFrom {
            metric(
                "source_read_lag_seconds", "gauge",
                "How far behind its primary the replica read last was, as it told; 0 when reads go to the source itself.",
                [([("reader", reader)], stats.readLagSeconds.map { "\($0)" } ?? "0")])
        }
        metric("pending_writes", "gauge", "Optimistic writes shown that the source has not confirmed yet.", [([], "\(stats.pendingWrites)")])
        if let refresh = stats.refresh {
            func timestamp(_ text: String?) -> [(labels: [(String, String)], value: String)] {
                text.flatMap(RFC3339.date).map { [([], seconds(microseconds: Int(($0.timeIntervalSince1970 * 1_000_000).rounded())))] } ?? []
            }
            if let interval = refresh.intervalSeconds {
                metric(
                    "source_refresh_interval_seconds", "gauge", "The interval a background refresh follows the source's last answer by.",
                    [([("from", refresh.intervalFrom)], seconds(microseconds: Int((interval * 1_000_000).rounded())))])
            }
            metric(
                "source_next_refresh_timestamp_seconds", "gauge", "When the next background refresh (or retry) is due.",
                timestamp(refresh.nextRefreshAt))
            metric(
                "source_last_success_timestamp_seconds", "gauge", "When the source last gave the items or said they had not changed.",
                timestamp(refresh.lastSuccessAt))
            metric(
                "source_consecutive_failures", "gauge", "Failed attempts to ask the source since it last answered.", one(refresh.consecutiveFailures))
            metric("source_file_watched", "gauge", "1 when the source's file is watched for changes.", one(refresh.watchedFile == nil ? 0 : 1))
        }
        if let resident = stats.residentBytes { metric("resident_memory_bytes", "gauge", "depotd's resident memory.", one(resident)) }
        if let files = stats.openFiles { metric("open_fds", "gauge", "depotd's open file descriptors.", one(files)) }
        if let cache = stats.cacheBytes { metric("cache_bytes", "gauge", "The on-disk cache's size.", one(cache)) }
        metric("unfinished_line_bytes", "gauge", "Bytes of unfinished lines from all clients.", one(stats.unfinishedLineBytes))
        metric("pipelines", "gauge", "Distinct pipelines running, each shared by the subscriptions that use it.", one(stats.pipelines))
        metric("parked_connections", "gauge", "Connections set aside because their sockets are full.", one(stats.parkedConnections))
        metric(
            "limit_reached_total", "counter", "Times each limit was reached, by its setting's name.",
            stats.limitsHit.map { ([("limit", $0.limit)], "\($0.count)") })
        return output.joined(separator: "\n")
    }

    /// `refresh every 60 s (max-age) · next in 48 s · last answer 12 s ago · watching /srv/items.json`, and when it
    /// fails, `· 3 failures since 2 min ago, the last: …`.
    static func refresh(_ refresh: DepotStatistics.Refresh, now: Date) -> String {
        func since(_ text: String?) -> Double? {
            text.flatMap(RFC3339.date).map { now.timeIntervalSince($0) }
        }
        var parts = [
            refresh.intervalSeconds.map { "refresh every \(RelativeTime.interval(seconds: $0)) (\(refresh.intervalFrom))" }
                ?? "no refresh on a timer (\(refresh.intervalFrom))"
        ]
        if refresh.paused {
            parts.append("waiting for a subscriber")
        } else if let due = since(refresh.nextRefreshAt).map({ -$0 }) {
            parts.append(RelativeTime.due(due, retrying: refresh.retrying))
        }
        if let answered = since(refresh.lastSuccessAt) { parts.append("last answer \(RelativeTime.ago(answered))") }
        if let file = refresh.watchedFile { parts.append("watching \(file)") }
        if let problem = refresh.watchProblem { parts.append(problem) }
        if refresh.consecutiveFailures > 0 {
            let failing = since(refresh.failingSince).map { " since \(RelativeTime.ago($0))" } ?? ""
            let count = refresh.consecutiveFailures == 1 ? "1 failure" : "\(refresh.consecutiveFailures) failures"
            parts.append("\(count)\(failing), the last: \(refresh.lastError ?? "?")")
        }
        return parts.joined(separator: " · ")
    }

    // MARK: Pieces

    static func bytes(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(oneDecimal(value)) \(units[unit])"
    }

    static func duration(seconds: Int) -> String {
        let (days, hours, minutes) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60)
        if days > 0 { return "\(days)d\(hours)h" }
        if hours > 0 { return "\(hours)h\(minutes)m" }
        if minutes > 0 { return "\(minutes)m\(seconds % 60)s" }
        return "\(seconds)s"
    }

    /// `, 250 ms behind` / `, 7.2 s behind` / `, 2 h behind` after a replica's address (past a second, as depotctl
    /// shows an interval); nothing when the lag is not told.
    static func lag(_ seconds: Double?) -> String {
        guard let seconds else { return "" }
        let milliseconds = Int((seconds * 1000).rounded())
        return ", \(milliseconds < 1000 ? "\(milliseconds) ms" : RelativeTime.interval(seconds: seconds)) behind"
    }

    private static func calls(_ calls: DepotStatistics.SourceCalls) -> String {
        var text = "\(calls.calls)"
        if calls.failures > 0 { text += " (\(calls.failures) failed)" }
        if let p50 = calls.p50Microseconds, let p99 = calls.p99Microseconds, let max = calls.maxMicroseconds {
            text += " p50 \(milliseconds(p50)) p99 \(milliseconds(p99)) max \(milliseconds(max))"
        }
        return text
    }

    private static func milliseconds(_ microseconds: Int) -> String {
        "\(oneDecimal(Double(microseconds) / 1000)) ms"
    }

    private static func seconds(microseconds: Int) -> String {
        let whole = microseconds / 1_000_000
        let fraction = String(microseconds % 1_000_000)
        return "\(whole)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func escaped(_ label: String) -> String {
        var escaped = ""
        for character in label {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Left-aligned columns, two spaces apart.
    private static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
