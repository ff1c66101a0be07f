import ArgumentParser
import DepotCache
import DepotCore
import Foundation
import Logging

/// How long the on-disk cache takes to save, open, read and change a large list, and how big its file is.
struct CacheTimes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Time ItemCache on a large list in a temporary directory: save, open, read (as at start-up), remove, clear."
    )

    @Option(help: "Items in the list.")
    var items = 100_000

    @Option(help: "Bytes of JSON per item.")
    var itemBytes = 200

    @Option(help: "Times to repeat each measurement; the median is shown, with the range.")
    var rounds = 5

    @Option(help: "The directory for the cache file. Default: a new one under /tmp, removed afterwards.")
    var directory: String?

    func validate() throws {
        guard items >= 1, itemBytes >= 40, rounds >= 1 else {
            throw ValidationError("--items and --rounds must be at least 1, --item-bytes at least 40")
        }
    }

    func run() async throws {
        let folder = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("depot-cache-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let path = ItemCache.defaultPath(in: folder)
        try? FileManager.default.removeItem(atPath: path)
        let logger = Logger(label: "depot-bench")
        let list = CachedCollection(
            items: try ItemCollection(items: makeItems()),
            fetchedAt: Date(),
            version: SourceVersion(etag: "\"bench\""),
            source: "bench:",
            idField: "id"
        )
        print("ItemCache: \(items) items of \(itemBytes) bytes (\(items * itemBytes / 1_000_000) MB of JSON), \(rounds) rounds")

        var cache = try await ItemCache.open(at: path, logger: logger)
        try await report("save (replace the whole list)") { try await cache.save(list) }
        print("  file: \(size(path)) database + \(size(path + "-wal")) write-ahead log while open")
        var opened: [Duration] = []
        var read: [Duration] = []
        for _ in 0..<rounds {
            try cache.close()
            opened.append(try await time { cache = try await ItemCache.open(at: path, logger: logger) })
            read.append(
                try await time {
                    guard try await cache.read()?.items.count == items else { throw ValidationError("the list read back is not whole") }
                })
        }
        show("open (integrity check, migrations)", opened)
        show("read (every item, into an ItemCollection)", read)
        show("open + read (start-up)", zip(opened, read).map { $0 + $1 })
        var index = 0
        try await report("remove(id:) one item") {
            index += 1
            try await cache.remove(id: "item-\(index * items / (rounds + 1))")
        }
        try await report("clear (and compact the file)") {
            try await cache.clear()
            try await cache.save(list)
        } subtracting: {
            try await cache.save(list)
        }
        try cache.close()
        print("  file after close: \(size(path)) database + \(size(path + "-wal")) write-ahead log")
    }

    private func makeItems() -> [Item] {
        (0..<items).map { index in
            let head = #"{"id":"item-\#(index)","index":\#(index),"name":"Item number \#(index)","pad":""#
            let json = head + String(repeating: "x", count: max(0, itemBytes - head.utf8.count - 2)) + "\"}"
            return Item(id: "item-\(index)", json: Array(json.utf8))
        }
    }

    /// Runs `operation` `rounds` times and prints the median, less the median of `baseline` when given.
    private func report(
        _ name: String,
        _ operation: () async throws -> Void,
        subtracting baseline: (() async throws -> Void)? = nil
    ) async throws {
        var durations: [Duration] = []
        for _ in 0..<rounds {
            durations.append(try await time(operation))
        }
        if let baseline {
            var base: [Duration] = []
            for _ in 0..<rounds { base.append(try await time(baseline)) }
            durations = zip(durations.sorted(), base.sorted()).map { $0 - $1 }
        }
        show(name, durations)
    }

    private func time(_ operation: () async throws -> Void) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await operation()
        return clock.now - start
    }

    private func show(_ name: String, _ durations: [Duration]) {
        let sorted = durations.sorted()
        func ms(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
        }
        print("  \(name): \(ms(sorted[sorted.count / 2])) (\(ms(sorted.first!)) to \(ms(sorted.last!)))")
    }

    private func size(_ path: String) -> String {
        let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        return String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
