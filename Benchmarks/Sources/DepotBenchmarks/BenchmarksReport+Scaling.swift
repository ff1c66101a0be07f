import Foundation

// Section 8 (issue 28): an optimistic removal's cost as the collection grows.
extension BenchmarksReport {
    var scalingDepotd: [FanoutFigures] {
        results.scaling.filter { $0.system.hasPrefix("depotd") }.sorted { $0.items < $1.items }
    }

    var scalingTargets: [String] {
        let depotd = scalingDepotd
        guard let smallest = depotd.first, let largest = depotd.last, largest.items > smallest.items else { return [] }
        var rows: [String] = []
        let span = "N=\(smallest.items) to N=\(largest.items), K=\(largest.subscribers)"
        let cpu = depotd.map { $0.cpuMillisecondsPerRound ?? 0 }
        if let low = cpu.min(), let high = cpu.max() {
            rows.append(
                row(
                    "Scaling, \(span): depotd's CPU per removal within 2× across N", cpu.map(ms).joined(separator: ", "),
                    low > 0 && high <= 2 * low))
        }
        let p99 = depotd.map(\.latency.p99)
        if let low = p99.min(), let high = p99.max() {
            rows.append(row("Scaling, \(span): delta p99 within 2× across N", p99.map(us).joined(separator: ", "), high <= 2 * low))
        }
        if let million = depotd.first(where: { $0.items == 1_000_000 }) {
            rows.append(
                row(
                    "N=1,000,000, K=\(million.subscribers): an optimistic removal's delta p99 ≤ 10 ms", us(million.latency.p99),
                    million.latency.p99 <= 10_000))
            if let cpu = million.cpuMillisecondsPerRound {
                rows.append(row("N=1,000,000: depotd's CPU per change ≤ 2 ms", ms(cpu), cpu <= 2))
            }
        }
        for stress in results.readsUnderChanges {
            // Met only at the rate asked (within 10%): reads stay fast trivially when the changes fall behind.
            let rate = stress.changeSeconds > 0 ? Double(stress.changesMade) / stress.changeSeconds : 0
            rows.append(
                row(
                    "N=\(stress.items) changing \(Int(stress.changesPerSecond))×/s: \(stress.clients) clients' `get` p99 ≤ 1.5× idle",
                    "\(us(stress.changing.p99)) vs \(us(stress.idle.p99)) (\(ratio(stress.changing.p99, stress.idle.p99))), "
                        + String(format: "%.1f changes/s", rate),
                    stress.changing.p99 <= 1.5 * stress.idle.p99 && rate >= 0.9 * stress.changesPerSecond))
        }
        return rows
    }

    /// `value` / `reference` as "1.23×".
    private func ratio(_ value: Double, _ reference: Double) -> String {
        reference > 0 ? String(format: "%.2f×", value / reference) : "—"
    }

    var readsUnderChangesTable: String {
        guard !results.readsUnderChanges.isEmpty else { return "" }
        var out = """
            **Reads while the collection changes** (the stress test). C clients call `get` of one item, each sending the \
            next call when its answer is whole, over the same connections in 2 s windows that alternate between the \
            collection idle and another connection making an optimistic removal every 1/rate s (the next at once when \
            one took longer), on the same daemon (a file source, no cache), for the seconds shown of each kind after a \
            warm-up (the first 0.1 s of each window left out). The removals made say whether depotd kept up.

            | N | C | Rate | Seconds | `get` p50 idle | p50 changing | p99 idle | p99 changing | p99 ratio | Removals made |
            |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for stress in results.readsUnderChanges {
            out += "| \(stress.items) | \(stress.clients) | \(Int(stress.changesPerSecond))/s | \(stress.seconds) | "
            out += "\(us(stress.idle.p50)) | \(us(stress.changing.p50)) | \(us(stress.idle.p99)) | \(us(stress.changing.p99)) | "
            out += "\(ratio(stress.changing.p99, stress.idle.p99)) | \(stress.changesMade) in \(String(format: "%.1f", stress.changeSeconds)) s |\n"
        }
        return out + "\n"
    }

    var scaling: String {
        guard !results.scaling.isEmpty else { return "" }
        var out = """
            ## 8. Scaling (issue 28)

            **An optimistic removal as N grows.** depotd on a file source of N items of \(BenchCollection.smallItemBytes) \
            bytes with the on-disk cache, K subscribers in delta mode, and the floor writing each of K readers a line of \
            the delta notification's size, rounds interleaved; a round is one `remove` with `optimistic: true`, timed from \
            sending it to each subscriber holding the optimistic state's notification, and depotd's CPU time (user and \
            system, /proc, 10 ms ticks) from just before it to the answer: the optimistic state, the file written again, \
            the cache's row, the confirmed state. The plot (`\(ScalingPlot.path)`, log-log) draws the same figures.

            | N | K | System | Rounds | p50 | p99 | Max | CPU per removal |
            |---:|---:|---|---:|---:|---:|---:|---:|

            """
        for figure in results.scaling.sorted(by: { ($0.items, $0.system) < ($1.items, $1.system) }) {
            let cpu = figure.system.hasPrefix("depotd") ? figure.cpuMillisecondsPerRound.map(ms) ?? "—" : "—"
            out += "| \(figure.items) | \(figure.subscribers) | \(figure.system) | \(figure.rounds) | \(us(figure.latency.p50)) | "
            out += "\(us(figure.latency.p99)) | \(us(figure.latency.max)) | \(cpu) |\n"
        }
        return out + "\n![An optimistic removal's CPU and delta p99 against N, log-log](\(ScalingPlot.path))\n\n" + readsUnderChangesTable
    }
}
