import Foundation

/// The run's temporary directory, for sockets and generated collections; short, so socket paths fit.
public struct BenchDirectory: Sendable {
    public let path: String

    public static func create() throws -> BenchDirectory {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let path = base + "/depot-bench-\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create the temporary directory \(path): \(error); set TMPDIR to a writable directory")
        }
        return BenchDirectory(path: path)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Where the binaries a run starts are.
public enum BenchBinaries {
    /// This tool's executable, which also serves as the floor.
    public static var this: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The depotd next to this tool (both are built into the same directory).
    public static var depotd: String {
        URL(fileURLWithPath: this).deletingLastPathComponent().appendingPathComponent("depotd").path
    }
}
