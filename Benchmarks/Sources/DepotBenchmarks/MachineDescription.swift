import Foundation

/// The machine a run measured on, for the report's header.
public struct MachineDescription: Codable, Sendable {
    public var cpu: String
    public var cores: Int
    public var memory: String
    public var kernel: String
    public var swift: String
    public var redis: String
    public var date: String

    public static func current(redisBinary: String?) -> MachineDescription {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let cpu =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let totalKiB =
            meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
        let kernel =
            (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
        let swift = firstLine(of: "/usr/bin/env", ["swift", "--version"]) ?? "unknown"
        let redis = redisBinary.flatMap { firstLine(of: $0, ["--version"]) } ?? "not installed"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return MachineDescription(
            cpu: cpu,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memory: String(format: "%.1f GiB", Double(totalKiB) / 1_048_576),
            kernel: "Linux " + kernel,
            swift: swift,
            redis: redis,
            date: formatter.string(from: Date())
        )
    }

    private static func firstLine(of executable: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
