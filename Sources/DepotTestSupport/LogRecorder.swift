import DepotPlatform
package import Logging

/// Keeps every log line a `Logger` made from it writes, message and metadata, so that a test can assert on
/// what was logged, at any level: in particular, that a secret never was; or wait until a line is.
package final class LogRecorder: Sendable {
    private let lines = Condition<[String]>([])

    package init() {}

    /// Every line so far: `level message key=value …`.
    package var all: [String] {
        lines.value
    }

    /// Waits until a line containing `text` is logged (combine with `withTimeout`), and returns it.
    @discardableResult
    package func waitForLine(containing text: String) async -> String {
        let lines = await lines.wait { $0.contains { $0.contains(text) } }
        return lines.first { $0.contains(text) } ?? ""
    }

    /// A logger that records everything from `level` up.
    package func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func record(_ line: String) {
        lines.update { $0.append(line) }
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
