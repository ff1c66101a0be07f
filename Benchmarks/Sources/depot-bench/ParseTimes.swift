import ArgumentParser
import DepotCore
import DepotJSON
import DepotSources
import Foundation

/// The references for a refresh that finds the same bytes: how long depotd's JSON parser takes over a file (a plain
/// parse), and how long the digest a refresh compares instead takes. Run on the same file as the refresh, in the same
/// run, so the two sit side by side.
struct ParseTimes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract:
            "Time a plain parse of a JSON file with depotd's parser, its SHA-256 digest, and a file source's scan and build; prints one JSON object."
    )

    @Argument(help: "The JSON file.")
    var file: String

    @Option(help: "Times to repeat each measurement; the median is printed.")
    var rounds = 7

    func run() async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        var parses: [Double] = []
        var digests: [Double] = []
        var scans: [Double] = []
        var builds: [Double] = []
        for _ in 0..<rounds {
            parses.append(try Self.cpuSeconds { _ = try JSONParser.parse(bytes) })
            digests.append(try Self.cpuSeconds { _ = ContentDigest.of(bytes) })
            // What a file source's load does instead of a parse: one pass copying each item compact, its id picked out,
            // then the collection built from the items.
            var items: [Item] = []
            scans.append(
                try Self.cpuSeconds {
                    _ = try bytes.withUnsafeBytes { buffer in
                        try JSONArrayScanner.scan(buffer, capturing: "id") { element in
                            let id = element.captured.map { String(decoding: element.compact[$0], as: UTF8.self) } ?? ""
                            items.append(Item(id: id, json: element.compact))
                            return true
                        }
                    }
                })
            builds.append(try Self.cpuSeconds { _ = try ItemCollection(items: items) })
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(
            #"{"bytes": \#(bytes.count), "parseMilliseconds": \#(median(parses) * 1000), "digestMilliseconds": \#(median(digests) * 1000), "scanMilliseconds": \#(median(scans) * 1000), "buildMilliseconds": \#(median(builds) * 1000)}"#
        )
    }

    /// The CPU time `work` takes on this thread.
    static func cpuSeconds(_ work: () throws -> Void) throws -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        try work()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }
}
