import Foundation

/// What one optimistic removal costs depotd on a file source with its on-disk cache: the time from `remove`
/// being sent to its answer (the state the removal ended with, once the file and the cache are written), and
/// what depotd read and wrote meanwhile. Disk bytes are depotd's read and write calls (/proc/PID/io) less the
/// request and the answer on the socket: with no subscribers, those are the only socket traffic.
public struct RemovalScenario: Sendable {
    public var items: Int
    public var removals: Int

    public init(items: Int, removals: Int) {
        self.items = items
        self.removals = removals
    }

    public func run(binary: String, directory: String, collection: BenchCollection) throws -> RemovalFigures {
        let itemsPath = directory + "/removal-items.json"
        try collection.write(to: itemsPath, ids: 1..<(items + 1))
        // The cache goes in a state directory of the benchmark's own, never the machine's.
        let stateDirectory = directory + "/removal-state"
        defer {
            try? FileManager.default.removeItem(atPath: itemsPath)
            try? FileManager.default.removeItem(atPath: stateDirectory)
        }
        let socket = directory + "/removal.sock"
        let process = try ManagedProcess.launch(
            "depotd", executable: binary,
            arguments: ["--socket", socket, "--source", "file:" + itemsPath, "--no-initial-load", "--log-level", "warning"],
            environment: ["STATE_DIRECTORY": stateDirectory]
        )
        defer { process.stop() }
        _ = try process.waitUntilAccepting(socket, timeout: 120)
        let control = try ControlConnection(path: socket, framing: .lines)
        // The load fills the cache; its answer comes once the list is saved.
        _ = try control.call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)

        var times: [UInt64] = []
        var perRemoval: [ProcessIO] = []
        var answerBytes = 0
        for id in 1...removals {
            let request = #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(id),"optimistic":true}}"#
            let before = try ProcessIO.of(process.pid)
            let start = MonotonicClock.now()
            try control.send(line: request)
            let (answer, head) = try control.receive()
            let end = MonotonicClock.now()
            guard !answer.isError else {
                throw BenchError("depotd answered remove \(id) with an error: \(String(decoding: head, as: UTF8.self))…")
            }
            var io = try ProcessIO.of(process.pid) - before
            io.readCalls -= request.utf8.count + 1
            io.writeCalls -= answer.bytes
            times.append(end - start)
            perRemoval.append(io)
            answerBytes = answer.bytes
        }
        func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }
        return RemovalFigures(
            items: items,
            removals: removals,
            toConfirmedState: LatencySummary(nanoseconds: times),
            fileBytesRead: median(perRemoval.map(\.readCalls)),
            fileBytesWritten: median(perRemoval.map(\.writeCalls)),
            storageBytesWritten: median(perRemoval.map(\.storageWritten)),
            answerBytes: answerBytes
        )
    }
}
