import DepotCore
import DepotJSON
import DepotWire
import Foundation
import NIOCore
import Testing

@testable import DepotServer

@Suite("NotificationHead: seq and skipped from a notification's first bytes")
struct NotificationHeadTests {
    static func line(subscription: String, skipped: Int, seq: Int, items: Int) -> [UInt8] {
        let collection = try! ItemCollection(
            values: (0..<items).map { ["id": .number(.init($0)), "pad": .string(String(repeating: "x", count: 100))] }, idField: "id")
        let state = StateEncoder.encode(PublishedState(seq: seq, state: .success(collection, .source(at: .now))), epoch: "e1")
        return Array(StateNotification.prefix(subscription: subscription, skipped: skipped).readableBytesView)
            + Array(state.readableBytesView) + Array(StateNotification.suffix.readableBytesView)
    }

    @Test("read from what StateNotification and StateEncoder write", arguments: [(0, 0), (3, 17), (12, 123_456_789)])
    func readsWhatIsWritten(skipped: Int, seq: Int) {
        let line = Self.line(subscription: "s42", skipped: skipped, seq: seq, items: 200)
        #expect(NotificationHead(line: line) == NotificationHead(seq: seq, skipped: skipped))
    }

    @Test(
        "an answer, a line of garbage, or a seq too large for Int is no notification head",
        arguments: [
            #"{"jsonrpc":"2.0","id":1,"result":{"seq":3,"status":"idle"}}"#,
            "garbage",
            "",
            #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":99999999999999999999999,"status":"idle"}}}"#,
        ])
    func notAHead(line: String) {
        #expect(NotificationHead(line: Array(line.utf8)) == nil)
    }
}
