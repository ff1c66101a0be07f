import DepotTestSupport
import Logging
import Testing

@testable import DepotSystemd

#if canImport(Glibc)
import Glibc
#endif

@Suite("The journal: when to use it, and how fields are named")
struct JournalTests {
    @Test("JOURNAL_STREAM counts only when it names the stream standard error is now")
    func journalStreamDetection() {
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        let current = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": current]))
        #expect(!JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]))
        #expect(!JournalStream.isStandardErrorConnected(environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!JournalStream.isStandardErrorConnected(environment: [:]))
    }

    @Test(
        "metadata keys become DEPOT_ fields of upper-case letters, digits and underscores",
        arguments: [
            ("subscription", "DEPOT_SUBSCRIPTION"),
            ("peer_pid", "DEPOT_PEER_PID"),
            ("sl-service", "DEPOT_SL_SERVICE"),
            ("seq", "DEPOT_SEQ"),
            ("méthode", "DEPOT_M_THODE"),
        ])
    func fieldNames(key: String, field: String) {
        #expect(JournalLogHandler.fieldName(key) == field)
    }

    @Test("levels map to syslog priorities")
    func priorities() {
        let expected: [Logger.Level: Int] = [.critical: 2, .error: 3, .warning: 4, .notice: 5, .info: 6, .debug: 7, .trace: 7]
        for (level, priority) in expected {
            #expect(JournalLogHandler.priority(level) == priority)
        }
    }

    @Test("the shared level changes every handler; a logger's own level stays its own")
    func sharedLevel() {
        let level = LogLevelControl(.info)
        var first = JournalLogHandler(identifier: "a", level: level)
        let second = ControlledLevelLogHandler(StreamLogHandler.standardError(label: "b"), level: level)
        #expect(first.logLevel == .info && second.logLevel == .info)
        level.current = .debug
        #expect(first.logLevel == .debug && second.logLevel == .debug)
        first.logLevel = .error
        #expect(first.logLevel == .error)
        #expect(second.logLevel == .debug && level.current == .debug)
    }
}
