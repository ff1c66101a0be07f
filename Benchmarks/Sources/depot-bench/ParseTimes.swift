import ArgumentParser
import DepotJSON
import DepotSources
import Foundation

/// The references for a refresh that finds the same bytes: how long depotd's JSON parser takes over a file (a plain
/// parse), and how long the digest a refresh compares instead takes. Run on the same file as the refresh, in the same
/// run, so the two sit side by side.
struct ParseTimes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Time a plain parse of a JSON file with depotd's parser, and its SHA-256 digest; prints one JSON object."
    )

    @Argument(help: "The JSON file.")
    var file: String

    @Option(help: "Times to repeat each measurement; the median is printed.")
    var rounds = 7

    func run() async throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        var parses: [Double] = []
        var digests: [Double] = []
        for _ in 0..<rounds {
            parses.append(try Self.cpuSeconds { _ = try JSONParser.parse(bytes) })
            digests.append(try Self.cpuSeconds { _ = ContentDigest.of(bytes) })
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(#"{"bytes": \#(bytes.count), "parseMilliseconds": \#(median(parses) * 1000), "digestMilliseconds": \#(median(digests) * 1000)}"#)
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
