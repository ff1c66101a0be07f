import Foundation

/// A process's CPU time so far, user and system, all its threads (those gone included), from /proc/PID/stat: in
/// clock ticks (10 ms here), so a figure is taken over enough work to make a tick small beside it.
enum ProcessCPU {
    static func milliseconds(of pid: pid_t) throws -> Double {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name, in parentheses, may hold spaces: the fields are counted after its closing one.
        guard let close = text.lastIndex(of: ")") else { throw BenchError("/proc/\(pid)/stat has no command name") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of stat(5); the 3rd (state) is the first after the name.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchError("/proc/\(pid)/stat has no utime and stime")
        }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
