import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The socket never exists at its path with a mode other than the one configured, whatever depotd's umask.
@Suite("depotd: the socket appears with its mode")
struct SocketModeTests {
    /// Watches `directory` with inotify for entries created or moved in, until one named `name` arrives.
    final class DirectoryWatch {
        let fd: Int32

        init(_ directory: String) throws {
            fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0, inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0 else {
                throw ChildProcessError(description: "inotify: \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(fd) }

        /// The events until `name` arrives: each entry's name and whether it was moved in (rather than created).
        func events(until name: String, timeout: Duration = .seconds(60)) throws -> [(name: String, movedIn: Bool)] {
            var seen: [(name: String, movedIn: Bool)] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                // Waits for the kernel's next event (at most 50 ms at a time, to keep to the deadline).
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 50) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { continue }
                var offset = 0
                while offset + 16 <= count {
                    let mask = buffer[offset + 4..<offset + 8].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                    let length = Int(buffer[offset + 12..<offset + 16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                    let nameBytes = buffer[offset + 16..<offset + 16 + length].prefix { $0 != 0 }
                    let entry = String(decoding: nameBytes, as: UTF8.self)
                    seen.append((entry, mask & UInt32(IN_MOVED_TO) != 0))
                    offset += 16 + length
                    if entry == name { return seen }
                }
            }
            throw ChildProcessError(description: "\(name) did not appear; saw \(seen.map(\.name))")
        }
    }

    @Test("under umask 000, with socketMode 0600: the socket is moved into place already 0600, never created there")
    func noWindow() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let runDirectory = directory.file("sock")
        try FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        let watch = try DirectoryWatch(runDirectory)
        let socket = runDirectory + "/depotd.sock"
        let source = Daemon.writeItems(2, in: directory)
        let daemon = try ChildProcess(
            "/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", Binaries.depotd, "--socket", socket, "--socket-mode", "0600", "--source", source],
            environment: Daemon.environment(in: directory))
        defer { daemon.signal(SIGKILL) }
        let events = try watch.events(until: "depotd.sock")
        #expect(events.last?.movedIn == true, "moved in, not created in place: \(events)")
        var status = stat()
        #expect(stat(socket, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(events.dropLast().allSatisfy { $0.name.hasPrefix(".depotd.") }, "only the private directory it was bound in")
        try await daemon.waitForError(containing: "listening on")
        #expect(!FileManager.default.fileExists(atPath: runDirectory + "/" + (events.first?.name ?? "")), "the private directory is gone")
    }
}

/// Out of file descriptors, depotd pauses accepting and says so once, and serves again when descriptors free up.
@Suite("depotd: out of file descriptors")
struct DescriptorExhaustionTests {
    /// depotd with at most `descriptors` open files, on a socket in `directory`, logging at `level`.
    static func start(descriptors: Int, in directory: TemporaryDirectory, logLevel: String = "info") async throws -> ChildProcess {
        let daemon = try ChildProcess(
            "/bin/sh",
            [
                "-c", "ulimit -n \(descriptors); exec \"$0\" \"$@\"", Binaries.depotd, "--socket", directory.file("depotd.sock"), "--source",
                Daemon.writeItems(2, in: directory), "--no-cache", "--log-level", logLevel,
            ],
            environment: Daemon.environment(in: directory))
        try await daemon.waitForError(containing: "listening on")
        return daemon
    }

    /// Opens `count` connections to the socket, each taken by the kernel's backlog whether or not depotd accepts it.
    static func connect(_ count: Int, to socketFile: String) -> [Int32] {
        (0..<count).map { _ in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in socketFile.utf8.enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(connected == 0, "the backlog takes every connection")
            return fd
        }
    }

    @Test("with ulimit -n 40 and 60 clients: one log line naming EMFILE, no crash, and a call answered once they leave")
    func emfile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let socketFile = directory.file("depotd.sock")
        let daemon = try await Self.start(descriptors: 40, in: directory)
        defer { daemon.signal(SIGKILL) }
        var clients = Self.connect(60, to: socketFile)
        defer { clients.forEach { close($0) } }
        try await daemon.waitForError(containing: "accepting connections failed")
        let log = daemon.standardError.value
        #expect(log.contains("Too many open files"), "\(log)")
        #expect(log.components(separatedBy: "accepting connections failed").count - 1 == 1, "said once, not once per attempt")
        clients.forEach { close($0) }
        clients = []
        // Descriptors are free again: a new client is served.
        let state = try await CommandResult.run(
            Binaries.depotctl, ["state", "--json", "--socket", socketFile], environment: Daemon.environment(in: directory))
        #expect(state.status == 0, "\(state.standardError)")
        #expect(daemon.exitStatus.value == nil, "still running")
    }

    @Test("with ulimit -n 64 and 200 clients waiting: depotd stops polling the listener between tries, and idles")
    func idlesWhileOutOfDescriptors() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let daemon = try await Self.start(descriptors: 64, in: directory, logLevel: "debug")
        defer { daemon.signal(SIGKILL) }
        let clients = Self.connect(200, to: directory.file("depotd.sock"))
        defer { clients.forEach { close($0) } }
        // Each try fails and pauses 250 ms: between the first pause and the fifth, a second passes in which a
        // listener left in the poll would have been reported readable, and accepted in vain, without end.
        let pauses: @Sendable (String) -> Int = { $0.components(separatedBy: "accept paused for").count - 1 }
        try await withTimeout(.seconds(60), "the first pause") { await daemon.standardError.wait { pauses($0) >= 1 } }
        let (start, used) = (ContinuousClock.now, try #require(daemon.cpuTime()))
        try await withTimeout(.seconds(60), "four more pauses") { await daemon.standardError.wait { pauses($0) >= 5 } }
        let (elapsed, usedSince) = (start.duration(to: .now), try #require(daemon.cpuTime()) - used)
        #expect(usedSince * 4 < elapsed, "depotd used \(usedSince) of CPU in \(elapsed) while it could not accept (spinning: about all of it)")
        #expect(daemon.exitStatus.value == nil, "still running")
    }
}
