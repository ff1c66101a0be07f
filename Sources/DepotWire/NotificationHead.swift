/// The seq and skipped count of a `stateChanged` line, read from its first bytes only — the layout
/// `StateNotification` writes — so a reader that needs only the order of states (a test's subscriber, a
/// benchmark) keeps up with states of any size without parsing their items.
public struct NotificationHead: Sendable, Equatable {
    public var seq: Int
    public var skipped: Int

    public init(seq: Int, skipped: Int) {
        self.seq = seq
        self.skipped = skipped
    }

    /// The head of `line` (a notification as depotd writes it, with or without its newline); nil for any
    /// other line.
    public init?(line: some Collection<UInt8>) {
        // Both markers sit in the notification's short prefix (the state's first member is its seq).
        let prefix = Array(line.prefix(Self.searchedBytes))
        guard Self.find(Self.methodMarker, in: prefix) != nil,
            let seq = Self.number(after: Self.seqMarker, in: prefix)
        else { return nil }
        self.init(seq: seq, skipped: Self.number(after: Self.skippedMarker, in: prefix) ?? 0)
    }

    /// How far into a line the head is looked for: the prefix, a subscription id and the seq fit well within it.
    static let searchedBytes = 256
    private static let methodMarker = Array(#""method":"stateChanged""#.utf8)
    private static let seqMarker = Array(#""state":{"seq":"#.utf8)
    private static let skippedMarker = Array(#""skipped":"#.utf8)

    private static func find(_ marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= marker.count else { return nil }
        for start in 0...(bytes.count - marker.count) where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return start + marker.count
        }
        return nil
    }

    private static func number(after marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard var index = find(marker, in: bytes) else { return nil }
        let start = index
        var value = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = shifted + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }
}
