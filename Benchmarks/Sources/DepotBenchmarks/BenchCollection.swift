import Foundation

/// The generated collection: items of exactly `itemBytes` bytes of compact JSON each, ids 1…count, and the
/// wire forms the references send in depotd's place, built from the same items so the byte counts match.
public struct BenchCollection: Sendable {
    public static let itemBytes = 1024
    /// The item size of the subscription scenarios (issue 13): about 200 bytes, as the issue sets them.
    public static let smallItemBytes = 200
    public let items: [[UInt8]]

    /// `count` items of `itemBytes` bytes each.
    public init(count: Int, itemBytes: Int = Self.itemBytes) {
        items = (0..<count).map { Self.item(id: $0 + 1, bytes: itemBytes) }
    }

    /// `{"id":7,"name":"item 7","types":["normal"],"note":"xxx…"}`, padded to exactly `bytes`.
    static func item(id: Int, bytes: Int = itemBytes) -> [UInt8] {
        let start = #"{"id":\#(id),"name":"item \#(id)","types":["normal"],"note":""#
        let padding = max(0, bytes - start.utf8.count - 2)
        return Array(start.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: padding) + Array(#""}"#.utf8)
    }

    /// Writes the items with ids in `ids` as a JSON array, one item per line, atomically.
    public func write(to path: String, ids: Range<Int>? = nil) throws {
        let chosen = ids.map { Array(items[($0.lowerBound - 1)..<($0.upperBound - 1)]) } ?? items
        var bytes: [UInt8] = Array("[\n".utf8)
        bytes.reserveCapacity(chosen.count * (Self.itemBytes + 2) + 4)
        for (index, item) in chosen.enumerated() {
            if index > 0 { bytes += Array(",\n".utf8) }
            bytes += item
        }
        bytes += Array("\n]\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// depotd's encoding of a success state holding the items with ids `ids`.
    public func stateJSON(seq: Int, ids: Range<Int>) -> [UInt8] {
        var bytes = Array(#"{"seq":\#(seq),"status":"success","items":["#.utf8)
        bytes.reserveCapacity(ids.count * (Self.itemBytes + 1) + 64)
        for id in ids {
            if id > ids.lowerBound { bytes.append(UInt8(ascii: ",")) }
            bytes += items[id - 1]
        }
        bytes += Array("]}".utf8)
        return bytes
    }

    /// The length of depotd's `stateChanged` line for a state of `stateBytes` bytes (subscription "s1").
    public static func notificationBytes(stateBytes: Int) -> Int {
        #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":"#.utf8.count + stateBytes + 3
    }

    /// The length of depotd's delta-mode `stateChanged` line for the optimistic removal of `id` from `count + 1`
    /// items (subscription "s1"): the state's short members with `count`, and a delta of one id.
    public static func deltaNotificationBytes(seq: Int, count: Int, id: Int) -> Int {
        let delta = #","delta":{"base":\#(seq - 1),"idField":"id","removed":["\#(id)"],"changed":[],"added":[]}"#
        return notificationBytes(stateBytes: optimisticStateBytes(seq: seq, count: count)) + delta.utf8.count
    }

    /// The length of depotd's delta-mode `stateChanged` line for an optimistic put or patch that changed one item of
    /// `count` into one of `itemBytes` bytes.
    public static func changeNotificationBytes(seq: Int, count: Int, itemBytes: Int) -> Int {
        let delta = #","delta":{"base":\#(seq - 1),"idField":"id","removed":[],"changed":[],"added":[]}"#
        return notificationBytes(stateBytes: optimisticStateBytes(seq: seq, count: count)) + delta.utf8.count + itemBytes
    }

    /// An optimistic state's short members: one write pending.
    private static func optimisticStateBytes(seq: Int, count: Int) -> Int {
        #"{"seq":\#(seq),"epoch":"0123456789abcdef","status":"success","origin":"memory","fetchedAt":"2026-11-24T05:00:00.000Z","stale":false,"pending":1,"count":\#(count)}"#
            .utf8.count
    }

    /// The length of depotd's answer line carrying a result of `resultBytes` bytes (id 1).
    public static func answerBytes(resultBytes: Int) -> Int {
        #"{"jsonrpc":"2.0","id":1,"result":"#.utf8.count + resultBytes + 2
    }
}
