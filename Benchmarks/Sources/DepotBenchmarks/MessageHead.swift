/// The first bytes of a message, and what the benchmark reads from them: the state's `seq`.
///
/// depotd's notification names the subscription before the state, and its answers the id; in both the first
/// `"seq":` is the state's. The floor and Redis carry payloads that start with `{"seq":N,` too.
public struct MessageHead {
    /// Enough for depotd's longest notification prefix (with `skipped`) and the state's seq.
    static let limit = 192
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(Self.limit)
    }

    var isFull: Bool { bytes.count >= Self.limit }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let room = Self.limit - bytes.count
        guard room > 0, chunk.count > 0 else { return }
        bytes.append(contentsOf: chunk.prefix(room))
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    private static let seqMarker = Array(#""seq":"#.utf8)
    private static let errorMarker = Array(#""error":"#.utf8)

    /// The number after the first `"seq":`.
    var seq: Int? {
        Self.seq(in: bytes)
    }

    var hasError: Bool {
        Self.end(of: Self.errorMarker, in: bytes) != nil
    }

    /// The number after the first `"seq":` in `bytes`, such as a whole line of depotd's.
    public static func seq(in bytes: [UInt8]) -> Int? {
        guard let start = end(of: seqMarker, in: bytes) else { return nil }
        var value = 0
        var index = start
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
        }
        return index > start ? value : nil
    }

    /// The index just past the first `marker` in `bytes`. A plain loop over the buffers: the reader threads look at
    /// every message's head, and the standard library's generic `firstRange(of:)` (its metadata lookups) cost them
    /// most of their CPU — on this 2-core machine, CPU the daemons under test did not get, more for the line-framed
    /// ones, whose heads are searched twice.
    private static func end(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { haystack in
            marker.withUnsafeBufferPointer { needle -> Int? in
                guard needle.count <= haystack.count else { return nil }
                var start = 0
                while start <= haystack.count - needle.count {
                    var matched = 0
                    while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return start + needle.count }
                    start += 1
                }
                return nil
            }
        }
    }
}
