import DepotCore
import DepotJSON
import DepotSchema
import DepotTestSupport
import DepotWire
import Foundation
import NIOCore
import Testing

@testable import DepotServer

@Suite("Delta and heartbeat encodings: DeltaEncoder, WireDelta, Heartbeat and the document agree")
struct DeltaEncodingTests {
    static let items = [
        Item(id: "1", json: Array(#"{"id":1,"n":"a"}"#.utf8)), Item(id: "x\"y", json: Array(#"{"id":"x\"y","n":"b"}"#.utf8)),
    ]
    static let delta = ItemDelta(
        removed: ["7", "x\"y"], changed: [items[0]], added: [.init(index: 0, item: items[1]), .init(index: 3, item: items[0])])

    /// The notification a delta-mode subscriber receives: a count-only State and the delta.
    static func notification(_ delta: ItemDelta, base: Int) throws -> JSONValue {
        let state = StateEncoder.encode(
            PublishedState(seq: base + 1, state: .success(try ItemCollection(items: [items[0]]), .source(at: .now))), epoch: "e1",
            form: .countOnly)
        var line = StateNotification.prefix(subscription: "s1")
        var stateBytes = state
        line.writeBuffer(&stateBytes)
        var deltaBytes = DeltaEncoder.encode(delta, base: base, idField: "id")
        line.writeBuffer(&deltaBytes)
        var suffix = StateNotification.suffix
        line.writeBuffer(&suffix)
        return try JSONParser.parse(Array(line.readableBytesView.dropLast()))
    }

    @Test("the exact bytes of a delta")
    func exactBytes() {
        #expect(
            String(buffer: DeltaEncoder.encode(Self.delta, base: 4, idField: "id"))
                == #","delta":{"base":4,"idField":"id","removed":["7","x\"y"],"changed":[{"id":1,"n":"a"}],"added":[{"index":0,"item":{"id":"x\"y","n":"b"}},{"index":3,"item":{"id":1,"n":"a"}}]}"#
        )
    }

    @Test("a stateChanged with a delta is valid against the document, and WireDelta reads back what was written")
    func roundTrip() throws {
        for delta in [Self.delta, ItemDelta()] {
            let message = try Self.notification(delta, base: 9)
            #expect(ProtocolLedger.document.validateNotification(message).isEmpty, "\(ProtocolLedger.document.validateNotification(message))")
            let decoded = try WireDelta(decoding: try #require(message["params"]?["delta"]))
            #expect(decoded.base == 9)
            #expect(decoded.idField == "id")
            #expect(decoded.removed == delta.removed)
            #expect(decoded.changed == (try delta.changed.map { try $0.value }))
            #expect(decoded.added.map(\.index) == delta.added.map(\.index))
        }
    }

    @Test("WireDelta applies to the items it was made for, as ItemDelta does, with integer ids as their text")
    func applies() throws {
        let old = [
            Item(id: "7", json: Array(#"{"id":7}"#.utf8)), Item(id: "x\"y", json: Array(#"{"id":"x\"y","n":"old"}"#.utf8)),
            Item(id: "1", json: Array(#"{"id":1,"n":"old"}"#.utf8)),
        ]
        let delta = ItemDelta(removed: ["7", "x\"y"], changed: [Self.items[0]], added: [.init(index: 0, item: Self.items[1])])
        let expected = try #require(delta.applied(to: old))
        let wire = try WireDelta(decoding: try #require(try Self.notification(delta, base: 1)["params"]?["delta"]))
        #expect(try wire.applied(to: old.map { try $0.value }) == expected.map { try $0.value })
        #expect(throws: WireDecodingError.self) { try wire.applied(to: []) }
    }

    @Test("a heartbeat line is valid against the document and decodes back")
    func heartbeat() throws {
        let beat = Heartbeat(subscription: "s\"1", epoch: "e1", seq: 12)
        let line = beat.line()
        #expect(String(buffer: line).hasSuffix("}}\n"))
        let message = try JSONParser.parse(Array(line.readableBytesView.dropLast()))
        #expect(ProtocolLedger.document.validateNotification(message).isEmpty)
        #expect(try Heartbeat(decoding: try #require(message["params"])) == beat)
    }
}
