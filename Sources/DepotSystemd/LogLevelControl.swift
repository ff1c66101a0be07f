package import Logging
import Synchronization

/// The daemon's log level, shared by every log handler, so that a reload can change it for all loggers
/// at once (swift-log's bootstrap happens only once per process).
package final class LogLevelControl: Sendable {
    private let level: Atomic<UInt8>

    package init(_ level: Logger.Level) {
        self.level = Atomic(Self.code(level))
    }

    package var current: Logger.Level {
        get { Logger.Level.allCases[Int(level.load(ordering: .relaxed))] }
        set { level.store(Self.code(newValue), ordering: .relaxed) }
    }

    /// The level's position in `Logger.Level.allCases`, which the getter reads back.
    private static func code(_ level: Logger.Level) -> UInt8 {
        // Cannot fail: every level is one of `allCases`.
        // swift-format-ignore: NeverForceUnwrap
        UInt8(Logger.Level.allCases.firstIndex(of: level)!)
    }
}

/// Wraps another handler (the standard-error stream, when not under the journal) so that its level follows
/// a `LogLevelControl`.
package struct ControlledLevelLogHandler<Wrapped: LogHandler>: LogHandler {
    private var wrapped: Wrapped
    private let level: LogLevelControl
    private var levelOverride: Logger.Level?

    package init(_ wrapped: Wrapped, level: LogLevelControl) {
        self.wrapped = wrapped
        self.level = level
    }

    /// The daemon's shared level, unless this logger was given its own.
    package var logLevel: Logger.Level {
        get { levelOverride ?? level.current }
        set { levelOverride = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package func log(event: LogEvent) {
        wrapped.log(event: event)
    }
}
