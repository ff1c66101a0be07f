import Foundation

// Section 9 (issue 39): writes — an optimistic put and patch as N grows, a file's layouts, a batch.
extension BenchmarksReport {
    var writesTargets: [String] {
        var rows: [String] = []
        for operation in ["put", "patch"] {
            let depotd = results.writeFanout.filter { $0.system == "depotd delta \(operation)" }.sorted { $0.items < $1.items }
            let p99 = depotd.map(\.latency.p99)
            if let smallest = depotd.first, let largest = depotd.last, largest.items > smallest.items, let low = p99.min(), let high = p99.max() {
                rows.append(
                    row(
                        "Optimistic `\(operation)`, N=\(smallest.items) to N=\(largest.items), K=\(largest.subscribers): p99 within 2× across N",
                        p99.map(us).joined(separator: ", "), high <= 2 * low))
            }
            if let million = depotd.first(where: { $0.items == 1_000_000 }) {
                rows.append(
                    row(
                        "Optimistic `\(operation)`, N=1,000,000, K=\(million.subscribers): p99 ≤ 10 ms", us(million.latency.p99),
                        million.latency.p99 <= 10_000))
            }
        }
        for figure in results.layouts {
            let first = figure.firstStateMilliseconds.max() ?? 0
            let resident = Double(figure.residentKiB.max() ?? 0) * 1024
            rows.append(
                row(
                    "\(figure.items) items, \(layoutName(figure)): first state ≤ 1.5 s, RSS then ≤ 2.5× the file",
                    "\(seconds(first)), \(ratioText(resident, Double(figure.fileBytes)))", first <= 1500 && resident <= 2.5 * Double(figure.fileBytes)
                ))
        }
        for figure in results.layouts where figure.changeMilliseconds.count > 1 {
            let first = figure.changeMilliseconds[0]
            let rest = Array(figure.changeMilliseconds.dropFirst())
            let typical = StartupScenario.median(rest)
            rows.append(
                row(
                    "\(layoutName(figure)): the first change after start reaches \(figure.subscribers) delta subscribers as fast as the next ones (≤ 2× their median)",
                    "\(ms(first)) vs \(ms(typical))", first <= 2 * max(typical, 1)))
        }
        for figure in results.batch {
            let put = StartupScenario.median(figure.putMilliseconds)
            let apply = StartupScenario.median(figure.applyMilliseconds)
            rows.append(
                row(
                    "`apply` of \(figure.batchSize) puts on a file of \(figure.items) items: one rewrite, ≤ 3× one `put`",
                    "\(ms(apply)) vs \(ms(put)) (\(ratio(apply, put))); \(bytes(Int(StartupScenario.median(figure.applyWritten.map(Double.init))))) vs \(bytes(Int(StartupScenario.median(figure.putWritten.map(Double.init))))) to storage",
                    apply <= 3 * put))
        }
        return rows
    }

    var writes: String {
        guard !results.writeFanout.isEmpty || !results.layouts.isEmpty || !results.batch.isEmpty else { return "" }
        var out = """
            ## 9. Writes (issue 39)

            **An optimistic put and patch as N grows.** As section 8's removal: depotd on a file source of N items of \
            \(BenchCollection.smallItemBytes) bytes with the on-disk cache, K subscribers in delta mode, and the floor writing each \
            reader a line of the delta notification's size (the changed item in it); a round is one `put` (a new item of the same \
            size in an item's place) or one `patch` (a merge patch of one member) with `optimistic: true`, timed from sending \
            it to each subscriber holding the optimistic state's notification, and depotd's CPU from just before it to the answer \
            (the optimistic state, the file spliced and written again, the cache's row, the confirmed state).

            | N | K | System | Rounds | p50 | p99 | Max | CPU per write |
            |---:|---:|---|---:|---:|---:|---:|---:|

            """
        for figure in results.writeFanout.sorted(by: { ($0.items, $0.system) < ($1.items, $1.system) }) {
            let cpu = figure.system.hasPrefix("depotd") ? figure.cpuMillisecondsPerRound.map(ms) ?? "—" : "—"
            out += "| \(figure.items) | \(figure.subscribers) | \(figure.system) | \(figure.rounds) | \(us(figure.latency.p50)) | "
            out += "\(us(figure.latency.p99)) | \(us(figure.latency.max)) | \(cpu) |\n"
        }
        if !results.layouts.isEmpty {
            out += """

                **A file's layout.** The same items written as each tool writes them (about 190 bytes each, compact), depotd \
                started on the file (`--no-watch-file`, its cache on), timed from its launch to a subscriber holding the first \
                success state, with its RSS then and its peak by then; the raw read is this process reading the same file, for \
                scale. Then, on the last start, \(results.layouts.first?.subscribers ?? 0) delta-mode subscribers and optimistic \
                `put`s one after the other, each timed from sending it to the last subscriber holding its state: the first \
                change after start, and the median and largest of the ones after it.

                | Layout | Items | File | Runs | First state | RSS then | Peak RSS | Raw read | First change | Next changes p50 / max |
                |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|

                """
            for figure in results.layouts {
                let first = figure.firstStateMilliseconds.map(seconds).joined(separator: ", ")
                let resident = figure.residentKiB.map { "\(bytes($0 * 1024)) (\(ratioText(Double($0) * 1024, Double(figure.fileBytes))))" }
                    .joined(separator: ", ")
                let peak = bytes((figure.peakKiB.max() ?? 0) * 1024)
                let rest = Array(figure.changeMilliseconds.dropFirst())
                let changes =
                    figure.changeMilliseconds.first.map { ms($0) } ?? "—"
                out += "| \(layoutName(figure)) | \(figure.items) | \(bytes(figure.fileBytes)) | \(figure.runs) | \(first) | \(resident) | \(peak) | "
                out +=
                    "\(ms(figure.rawReadMilliseconds)) | \(changes) | \(rest.isEmpty ? "—" : "\(ms(StartupScenario.median(rest))) / \(ms(rest.max() ?? 0))") |\n"
            }
        }
        for figure in results.batch {
            out += """

                **Many puts at once.** A file of \(figure.items) items (\(bytes(figure.fileBytes)), as `json.dump` writes it), \
                depotd on it with its cache: \(figure.putMilliseconds.count) `put`s of one item, then \(figure.applyMilliseconds.count) \
                `apply`s of \(figure.batchSize) puts each, none optimistic, each timed from sending it to its answer (the source \
                written), with what depotd handed the storage layer for it (the file, and the cache's rows).

                | Call | Calls | p50 | Max | To storage (median) |
                |---|---:|---:|---:|---:|
                | `put` of 1 | \(figure.putMilliseconds.count) | \(ms(StartupScenario.median(figure.putMilliseconds))) | \(ms(figure.putMilliseconds.max() ?? 0)) | \(bytes(Int(StartupScenario.median(figure.putWritten.map(Double.init))))) |
                | `apply` of \(figure.batchSize) | \(figure.applyMilliseconds.count) | \(ms(StartupScenario.median(figure.applyMilliseconds))) | \(ms(figure.applyMilliseconds.max() ?? 0)) | \(bytes(Int(StartupScenario.median(figure.applyWritten.map(Double.init))))) |

                """
        }
        return out + "\n"
    }

    private func layoutName(_ figure: LayoutFigures) -> String {
        figure.layout.rawValue + (figure.stringIDs ? ", string ids" : "")
    }

    private func seconds(_ milliseconds: Double) -> String {
        String(format: "%.2f s", milliseconds / 1000)
    }

    private func ratioText(_ value: Double, _ reference: Double) -> String {
        reference > 0 ? String(format: "%.1f×", value / reference) : "—"
    }
}
