package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program started by a test, with its output collected as it comes, so a test can wait for a line
/// to appear or for the exit, without sleeping.
///
/// Started with posix_spawn and close-on-exec pipes, and given no other descriptor of this process: tests start
/// many programs at once, and a pipe end inherited by a sibling would keep the output "open" until that sibling
/// exits, a socket inherited would stay open after the test closed it.
package final class ChildProcess: Sendable {
    package let pid: pid_t
    package let executable: String
    package let standardOutput = Condition("")
    package let standardError = Condition("")
    /// The exit status once it has exited (killed by a signal: 128 + the signal number).
    package let exitStatus = Condition<Int32?>(nil)
    /// How many of the two output pipes have reached their end.
    private let outputClosed = Condition(0)

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// declare: looked up once by name.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    /// Adds to `actions` the closing of every descriptor from `lowest` up, where the C library can.
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        guard let addCloseFrom else { return }
        _ = addCloseFrom(&actions, lowest)
    }

    /// - Parameter descriptors: extra descriptors for the child, as child fd → this process's fd (for socket
    ///   activation: a listening socket as fd 3).
    package init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        input: [UInt8]? = nil,
        descriptors: [Int32: Int32] = [:]
    ) throws {
        self.executable = executable
        let output = try Self.makePipe()
        let error = try Self.makePipe()
        let stdin = try Self.makePipe()

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, error.write, 2)
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            // dup2 onto the same number would keep close-on-exec; ChildProcess callers never pass 3 for 3.
            precondition(target != source, "pass a descriptor numbered differently from its target")
            posix_spawn_file_actions_adddup2(&actions, source, target)
        }
        // Nothing else of this process reaches the child: a descriptor some library opened without close-on-exec
        // (a test HTTP server's listening socket, say) would otherwise stay open in the child, and keep accepting
        // connections for a server the test has stopped.
        Self.closeFrom((descriptors.keys.max() ?? 2) + 1, in: &actions)

        // The child starts with no blocked signals and default handlers, whatever this thread had.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, executable, &actions, &attributes, argv, envp)
        let pid = spawned
        for fd in [output.write, error.write, stdin.read] { close(fd) }
        guard result == 0 else {
            for fd in [output.read, error.read, stdin.write] { close(fd) }
            throw ChildProcessError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        self.pid = pid

        Self.collect(output.read, into: standardOutput, closed: outputClosed)
        Self.collect(error.read, into: standardError, closed: outputClosed)
        // Feed the input from a thread of its own, so a child that writes before it has read everything
        // cannot deadlock against us.
        let stdinWrite = stdin.write
        Thread.detachNewThread {
            if let input {
                Self.writeAll(input, to: stdinWrite)
            }
            close(stdinWrite)
        }
        let exitStatus = self.exitStatus
        let standardError = self.standardError
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            exitStatus.update { $0 = signal == 0 ? (status >> 8) & 0xff : 128 + signal }
            // Wake anyone waiting for a line that will now never come, so they can see the exit.
            standardError.update { _ in }
        }
    }

    package func signal(_ number: Int32) {
        if exitStatus.value == nil {
            kill(pid, number)
        }
    }

    /// Waits for the exit and for the end of its output, and returns the status.
    @discardableResult
    package func waitForExit(_ limit: Duration = .seconds(60)) async throws -> Int32 {
        let name = (executable as NSString).lastPathComponent
        let status = try await withTimeout(limit, "\(name) to exit") {
            await self.exitStatus.wait { $0 != nil }
        }
        try await withTimeout(.seconds(30), "the end of \(name)'s output") {
            await self.outputClosed.wait { $0 == 2 }
        }
        return status!
    }

    /// Waits until standard error contains `text`; fails with what it printed if it exits first.
    package func waitForError(containing text: String, _ limit: Duration = .seconds(60)) async throws {
        let exitStatus = self.exitStatus
        let printed = try await withTimeout(limit, "\"\(text)\" on standard error") {
            await self.standardError.wait { $0.contains(text) || exitStatus.value != nil }
        }
        guard printed.contains(text) else {
            throw ChildProcessError(description: "\(executable) exited (\(exitStatus.value ?? -1)) before printing \"\(text)\":\n\(printed)")
        }
    }

    /// Waits until standard output has at least `count` complete lines, and returns the first `count`.
    package func waitForOutputLines(_ count: Int, _ limit: Duration = .seconds(60)) async throws -> [String] {
        let text = try await withTimeout(limit, "\(count) lines of output") {
            await self.standardOutput.wait { $0.filter { $0 == "\n" }.count >= count }
        }
        return text.split(separator: "\n").prefix(count).map(String.init)
    }

    /// The resident memory of the process, in KiB, from /proc.
    package func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// The CPU time the process has used so far (user and system), from /proc; nil once it is gone.
    package func cpuTime() -> Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command's name in parentheses: state is field 3, utime and stime fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        return .milliseconds((user + system) * 1000 / ticksPerSecond)
    }

    // MARK: Internals

    /// A one-way channel whose ends are close-on-exec from the start (a socket pair: Glibc's module does
    /// not export pipe2, and pipe plus fcntl would leave a window for a sibling's spawn).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw ChildProcessError(description: "socketpair: \(String(cString: strerror(errno)))")
        }
        shutdown(fds[0], Int32(SHUT_WR))
        shutdown(fds[1], Int32(SHUT_RD))
        return (fds[0], fds[1])
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Reads `fd` to its end on a thread of its own, appending to `text` as data comes. A character whose bytes
    /// arrive in two reads is decoded once whole, not as two broken halves.
    private static func collect(_ fd: Int32, into text: Condition<String>, closed: Condition<Int>) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var pending: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += buffer[0..<count]
                let whole = completeUTF8Prefix(pending)
                let chunk = String(decoding: pending[..<whole], as: UTF8.self)
                pending.removeFirst(whole)
                text.update { $0 += chunk }
            }
            if !pending.isEmpty {
                let rest = String(decoding: pending, as: UTF8.self)
                text.update { $0 += rest }
            }
            close(fd)
            closed.update { $0 += 1 }
        }
    }

    /// How many of `bytes` end on a character boundary: all, unless the last character's bytes are not all there.
    static func completeUTF8Prefix(_ bytes: [UInt8]) -> Int {
        for back in 0..<min(4, bytes.count) {
            let byte = bytes[bytes.count - 1 - back]
            guard byte & 0xC0 == 0x80 else {
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return back + 1 >= length ? bytes.count : bytes.count - back - 1
            }
        }
        return bytes.count
    }
}

package struct ChildProcessError: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
