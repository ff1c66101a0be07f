import DepotSystemd
import DepotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("sd_notify against a stand-in notification socket", .serialized)
struct SystemdNotifierTests {
    @Test("each message arrives as its assignments, one per line", arguments: [false, true])
    func messages(abstract: Bool) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // An abstract name must be unique on the machine: use the temporary directory's unique path.
        let socket = try NotifySocket(path: directory.file("notify"), abstract: abstract)
        let notifier = SystemdNotifier()
        try await ProcessVariables.with(["NOTIFY_SOCKET": socket.address]) {
            #expect(notifier.isActive)
            notifier.ready(status: "success · 3 items")
            #expect(try await socket.receive() == "READY=1\nSTATUS=success · 3 items")
            notifier.status("two\nlines")
            #expect(try await socket.receive() == "STATUS=two lines", "a status is always one line")
            notifier.stopping()
            #expect(try await socket.receive() == "STOPPING=1")
            notifier.watchdog()
            #expect(try await socket.receive() == "WATCHDOG=1")

            var before = timespec()
            clock_gettime(CLOCK_MONOTONIC, &before)
            notifier.reloading()
            let reloading = NotifySocket.fields(try await socket.receive())
            #expect(reloading["RELOADING"] == "1")
            let stamp = try #require(reloading["MONOTONIC_USEC"].flatMap(UInt64.init))
            let beforeMicroseconds = UInt64(before.tv_sec) * 1_000_000 + UInt64(before.tv_nsec) / 1_000
            #expect(stamp >= beforeMicroseconds, "MONOTONIC_USEC is CLOCK_MONOTONIC in microseconds")
        }
    }

    @Test("without NOTIFY_SOCKET nothing is sent and nothing fails")
    func inactive() async {
        await ProcessVariables.with(["NOTIFY_SOCKET": nil]) {
            let notifier = SystemdNotifier()
            #expect(!notifier.isActive)
            #expect(notifier.send(["READY=1"]) == false)
            notifier.ready(status: "x")
        }
    }

    @Test("the watchdog interval comes from WATCHDOG_USEC, for this process only")
    func watchdogInterval() async {
        await ProcessVariables.with(["WATCHDOG_USEC": "2500000", "WATCHDOG_PID": nil]) {
            #expect(SystemdNotifier.watchdogInterval() == .milliseconds(2500))
        }
        await ProcessVariables.with(["WATCHDOG_USEC": "2500000", "WATCHDOG_PID": String(getpid())]) {
            #expect(SystemdNotifier.watchdogInterval() == .milliseconds(2500))
        }
        await ProcessVariables.with(["WATCHDOG_USEC": "2500000", "WATCHDOG_PID": "1"]) {
            #expect(SystemdNotifier.watchdogInterval() == nil, "meant for another process")
        }
        await ProcessVariables.with(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) {
            #expect(SystemdNotifier.watchdogInterval() == nil)
        }
    }
}
