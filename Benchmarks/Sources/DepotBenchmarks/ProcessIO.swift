public import Foundation

/// A process's I/O counters from /proc/PID/io: bytes passed to read and write calls (files, sockets and pipes
/// alike), and bytes the storage layer read or was given to write (zero where the kernel does not account them).
public struct ProcessIO: Sendable {
    public var readCalls: Int
    public var writeCalls: Int
    public var storageRead: Int
    public var storageWritten: Int

    /// The counters of `pid` now.
    public static func of(_ pid: pid_t) throws -> ProcessIO {
        let text: String
        do {
            text = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
        } catch {
            throw BenchError("cannot read /proc/\(pid)/io (\(error)); run the benchmark as the user that runs depotd")
        }
        var fields: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) {
                fields[String(parts[0])] = value
            }
        }
        return ProcessIO(
            readCalls: fields["rchar"] ?? 0,
            writeCalls: fields["wchar"] ?? 0,
            storageRead: fields["read_bytes"] ?? 0,
            storageWritten: fields["write_bytes"] ?? 0
        )
    }

    public static func - (after: ProcessIO, before: ProcessIO) -> ProcessIO {
        ProcessIO(
            readCalls: after.readCalls - before.readCalls,
            writeCalls: after.writeCalls - before.writeCalls,
            storageRead: after.storageRead - before.storageRead,
            storageWritten: after.storageWritten - before.storageWritten
        )
    }
}
