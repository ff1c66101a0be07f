import CSystemd
package import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Logs to the systemd journal with sd_journal_sendv: the message with its syslog priority, the code
/// location, and every metadata entry as a field of its own (`subscription` → `DEPOT_SUBSCRIPTION`), so
/// `journalctl -u depotd -p warning` and `journalctl DEPOT_METHOD=remove` work.
package struct JournalLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let identifier: String
    private let level: LogLevelControl

    package init(identifier: String, level: LogLevelControl) {
        self.identifier = identifier
        self.level = level
    }

    private var levelOverride: Logger.Level?

    /// The daemon's shared level (which a reload can change), unless this logger was given its own.
    package var logLevel: Logger.Level {
        get { levelOverride ?? level.current }
        set { levelOverride = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(Self.priority(event.level))",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        var merged = metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let explicit = event.metadata {
            merged.merge(explicit) { _, new in new }
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            fields.append("\(Self.fieldName(key))=\(value)")
        }
        Self.send(fields)
    }

    /// Syslog priorities: critical 2, error 3, warning 4, notice 5, info 6, debug and trace 7.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .critical: 2
        case .error: 3
        case .warning: 4
        case .notice: 5
        case .info: 6
        case .debug, .trace: 7
        }
    }

    /// A journal field name: upper-case letters, digits and underscores, prefixed so it never collides
    /// with the journal's own fields.
    static func fieldName(_ key: String) -> String {
        let cleaned = key.uppercased().unicodeScalars.map { scalar -> Character in
            (("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        return "DEPOT_" + String(cleaned)
    }

    /// Sends the fields as one entry: they are laid end to end in one buffer, and each iovec points into it.
    private static func send(_ fields: [String]) {
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = storage.count
            storage.append(contentsOf: field.utf8)
            ranges.append(start..<storage.count)
        }
        storage.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            _ = vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}
