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

    /// The depotd built by the main package in the same configuration as this tool: the benchmarks are a package
    /// of their own in `Benchmarks/`, so this tool is in `Benchmarks/.build/<triple>/<configuration>/` and depotd
    /// in `.build/<triple>/<configuration>/`; a depotd next to this tool comes first.
    public static var depotd: String {
        let tool = URL(fileURLWithPath: this)
        let beside = tool.deletingLastPathComponent().appendingPathComponent("depotd").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        let marker = "/Benchmarks/.build/"
        guard let range = tool.path.range(of: marker) else { return beside }
        // …/Benchmarks/.build/x86_64-unknown-linux-gnu/release/depot-bench → …/.build/x86_64-unknown-linux-gnu/release/depotd
        let root = tool.path[..<range.lowerBound]
        let configuration = tool.path[range.upperBound...].split(separator: "/").dropLast().joined(separator: "/")
        return root + "/.build/" + configuration + "/depotd"
    }
}
