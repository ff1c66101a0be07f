import DepotSystemd
import Logging

/// Installs depotd's log handlers: the journal, natively (priorities and fields), when standard error is the
/// journal stream systemd connected; otherwise lines on standard error. Either way the level follows `level`,
/// which a reload can change.
enum LoggingSetup {
    /// - Returns: true when logging goes to the journal.
    @discardableResult
    static func bootstrap(level: LogLevelControl, environment: [String: String]) -> Bool {
        let toJournal = JournalStream.isStandardErrorConnected(environment: environment)
        LoggingSystem.bootstrap { label in
            if toJournal {
                return JournalLogHandler(identifier: label, level: level)
            }
            return ControlledLevelLogHandler(StreamLogHandler.standardError(label: label), level: level)
        }
        return toJournal
    }
}
