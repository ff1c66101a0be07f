import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager how depotd is doing, through libsystemd's sd_notify: readiness, a status line,
/// reloading, stopping, and watchdog keep-alives. Every call does nothing when depotd was not started by
/// systemd (no NOTIFY_SOCKET), so the daemon can call it unconditionally.
package struct SystemdNotifier: Sendable {
    package init() {}

    /// True when a service manager listens (NOTIFY_SOCKET is set).
    package var isActive: Bool {
        getenv("NOTIFY_SOCKET") != nil
    }

    /// READY=1, with the status line when one is given.
    package func ready(status: String? = nil) {
        send(["READY=1"] + (status.map { ["STATUS=" + Self.oneLine($0)] } ?? []))
    }

    /// RELOADING=1 with the CLOCK_MONOTONIC time systemd expects alongside it; READY=1 ends the reload.
    package func reloading(status: String? = nil) {
        send(["RELOADING=1", "MONOTONIC_USEC=\(Self.monotonicMicroseconds())"] + (status.map { ["STATUS=" + Self.oneLine($0)] } ?? []))
    }

    /// STOPPING=1: depotd has begun to shut down.
    package func stopping(status: String? = nil) {
        send(["STOPPING=1"] + (status.map { ["STATUS=" + Self.oneLine($0)] } ?? []))
    }

    /// STATUS=…: the one-line status `systemctl status` shows.
    package func status(_ text: String) {
        send(["STATUS=" + Self.oneLine(text)])
    }

    /// WATCHDOG=1: depotd is alive and working.
    package func watchdog() {
        send(["WATCHDOG=1"])
    }

    /// Sends raw assignments, one per line. Returns false when nothing listens or sending failed.
    @discardableResult
    package func send(_ assignments: [String]) -> Bool {
        sd_notify(0, assignments.joined(separator: "\n")) > 0
    }

    /// The watchdog interval systemd asks for (WATCHDOG_USEC, for this process), or nil when there is none.
    package static func watchdogInterval() -> Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// A status must be one line: the protocol separates assignments with newlines.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
