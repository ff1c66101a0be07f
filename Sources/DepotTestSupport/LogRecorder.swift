import DepotPlatform
package import Logging

/// Keeps every log line a `Logger` made from it writes, message and metadata, so that a test can assert on
/// what was logged, at any level: in particular, that a secret never was.
package final class LogRecorder: Sendable {
    private let lines = Locked<[String]>([])

    package init() {}

    /// Every line so far: `level message key=value …`.
    package var all: [String] {
        lines.withLock { $0 }
    }

    /// A logger that records everything from `level` up.
    package func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func record(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let fields = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            recorder.record("\(event.level) \(event.message)\(fields)")
        }
    }
}
