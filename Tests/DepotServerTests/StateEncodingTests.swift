public import DepotCore
import DepotJSON
import DepotOperators
import DepotPlatform
import DepotSchema
import DepotTestSupport
import DepotWire
import Foundation
import NIOCore
public import Testing

@testable import DepotServer

@Suite("State encoding: StateEncoder, WireState and the document agree")
struct StateEncodingTests {
    static let epoch = "9f2c4e1a7b3d5860"
    static let fetchedAt = Date(timeIntervalSince1970: 1_795_120_909.123)
    static let items = try! ItemCollection(
        values: [
            ["id": 25, "name": "Pikachu", "stats": ["hp": 35, "speed": .number(JSONNumber(literal: "90.0")!)]],
            ["name": "Mew \"151\"\n", "id": "mew"],
        ], idField: "id")

    /// One state of every shape the repository can publish.
    static let states: [PublishedState] = [
        PublishedState(seq: 0, state: .idle),
        PublishedState(seq: 1, state: .loading),
        PublishedState(seq: 2, state: .success(items, .source(at: fetchedAt))),
        PublishedState(seq: 3, state: .success(ItemCollection(), Provenance(origin: .cache, fetchedAt: fetchedAt, stale: true))),
        PublishedState(seq: 4, state: .success(items, Provenance(origin: .memory, fetchedAt: fetchedAt))),
        PublishedState(seq: 5, state: .failure(StateError(.loadFailed, message: "cannot read \"x\"\n: gone ☂"))),
        PublishedState(seq: 6, state: .failure(StateError(.changeFailed, message: "refused"))),
        PublishedState(seq: 7, state: .failure(StateError(.notFound, message: "no such id"))),
        PublishedState(
            seq: 8, state: .success(items, Provenance(origin: .cache, fetchedAt: fetchedAt, stale: true, staleReason: "GET http://x/ failed \"☂\""))),
    ]

    @Test("the encoding of every shape of state is valid against components/schemas/State", arguments: states)
    func encodingFitsTheDocument(published: PublishedState) throws {
        let json = try JSONParser.parse(Array(StateEncoder.encode(published, epoch: Self.epoch).readableBytesView))
        let method = try #require(ProtocolLedger.document.method(named: StateRequest.method))
        #expect(method.validateResult(json).isEmpty, "\(method.validateResult(json))")
    }

    @Test("WireState decodes exactly what StateEncoder wrote", arguments: states)
    func roundTrip(published: PublishedState) throws {
        let json = try JSONParser.parse(Array(StateEncoder.encode(published, epoch: Self.epoch).readableBytesView))
        let decoded = try WireState(decoding: json)
        #expect(decoded.seq == published.seq)
        #expect(decoded.epoch == Self.epoch)
        #expect(decoded.status.rawValue == published.state.status.rawValue)
        switch published.state {
        case .idle: #expect(decoded.content == WireState.Content.idle)
        case .loading: #expect(decoded.content == WireState.Content.loading)
        case .success(let items, let provenance):
            #expect(decoded.items == items.items.map { try! $0.value }, "items keep their members in order and their number literals")
            #expect(
                decoded.provenance
                    == WireProvenance(
                        origin: ItemOrigin(provenance.origin), fetchedAt: RFC3339.string(from: provenance.fetchedAt), stale: provenance.stale,
                        staleReason: provenance.staleReason))
        case .failure(let error):
            #expect(decoded.failure == WireFailure(code: DepotErrorCode.code(for: error.kind), message: error.message))
        }
    }

    @Test(
        "delta-mode forms: count with the items, count alone; valid against State and decoded with their count",
        arguments: states, [StateEncoder.Form.countedItems, .countOnly])
    func deltaModeForms(published: PublishedState, form: StateEncoder.Form) throws {
        let json = try JSONParser.parse(Array(StateEncoder.encode(published, epoch: Self.epoch, form: form).readableBytesView))
        let method = try #require(ProtocolLedger.document.method(named: StateRequest.method))
        #expect(method.validateResult(json).isEmpty, "\(method.validateResult(json))")
        let decoded = try WireState(decoding: json)
        #expect(decoded.count == published.state.items?.count)
        if published.state.status == .success {
            #expect(decoded.items == (form == .countOnly ? nil : published.state.items?.items.map { try! $0.value }))
        } else {
            #expect(json == (try JSONParser.parse(Array(StateEncoder.encode(published, epoch: Self.epoch).readableBytesView))))
        }
    }

    @Test("a count that does not match the items is refused")
    func countMismatch() throws {
        let json = try JSONParser.parse(
            #"{"seq":2,"epoch":"e","status":"success","origin":"source","fetchedAt":"2026-11-19T20:41:49.123Z","stale":false,"count":3,"items":[]}"#)
        #expect(throws: WireDecodingError.self) { try WireState(decoding: json) }
    }

    @Test("the exact bytes of a success and a failure: short members first, items as the source gave them")
    func exactBytes() {
        let success = StateEncoder.encode(Self.states[2], epoch: Self.epoch)
        #expect(
            String(buffer: success)
                == #"{"seq":2,"epoch":"9f2c4e1a7b3d5860","status":"success","origin":"source","fetchedAt":"2026-11-19T20:41:49.123Z","stale":false,"pending":0,"items":[{"id":25,"name":"Pikachu","stats":{"hp":35,"speed":90.0}},{"name":"Mew \"151\"\n","id":"mew"}]}"#
        )
        let failure = StateEncoder.encode(Self.states[6], epoch: Self.epoch)
        #expect(String(buffer: failure) == #"{"seq":6,"epoch":"9f2c4e1a7b3d5860","status":"failure","error":{"code":-32002,"message":"refused"}}"#)
    }

    @Test("every example State in the document decodes")
    func documentExamplesDecode() throws {
        var decoded = 0
        for method in ProtocolLedger.document.methods
        where [StateRequest.method, LoadRequest.method, RemoveRequest.method, WipeRequest.method].contains(method.name) {
            for example in method.examples {
                let result = try #require(example.result, "\(method.name): \(example.name)")
                _ = try WireState(decoding: result)
                decoded += 1
            }
        }
        #expect(decoded >= 4)
    }

    @Test("members the document does not list are ignored, as it asks of clients")
    func unknownMembersAreIgnored() throws {
        let state = try WireState(decoding: try JSONParser.parse(#"{"seq":3,"epoch":"e1","status":"loading","progress":0.5,"hint":{"a":1}}"#))
        #expect(state == WireState(seq: 3, epoch: "e1", content: .loading))
    }

    @Test(
        "a State that breaks the document is refused with a message that names the member",
        arguments: [
            (#"[]"#, "a State must be an object, not array"),
            (#"{"status":"idle"}"#, #"the State has no "seq""#),
            (#"{"seq":1,"status":"idle"}"#, #"the State has no "epoch""#),
            (#"{"seq":1,"epoch":7,"status":"idle"}"#, #"the State's "epoch" must be a string, not 7"#),
            (#"{"seq":-1,"epoch":"e1","status":"idle"}"#, #"the State's "seq" must be at least 0, not -1"#),
            (#"{"seq":1.5,"epoch":"e1","status":"idle"}"#, #"the State's "seq" must be an integer, not 1.5"#),
            (
                #"{"seq":1,"epoch":"e1","status":"paused"}"#,
                #"the State's "status" must be one of "idle", "loading", "success", "failure", not "paused""#
            ),
            (
                #"{"seq":1,"epoch":"e1","status":"success","origin":"source","fetchedAt":"2026-11-21T20:41:49.123Z","stale":false}"#,
                #"the State has no "items""#
            ),
            (
                #"{"seq":1,"epoch":"e1","status":"success","origin":"disk","fetchedAt":"x","stale":false,"items":[]}"#,
                #"the State's "origin" must be one of "source", "cache", "memory", not "disk""#
            ),
            (
                #"{"seq":1,"epoch":"e1","status":"success","origin":"cache","fetchedAt":"x","stale":"no","items":[]}"#,
                #"the State's "stale" must be true or false, not "no""#
            ),
            (
                #"{"seq":1,"epoch":"e1","status":"success","origin":"cache","fetchedAt":"x","stale":true,"items":[1]}"#,
                #"the State's "items" must be an array of objects, not 1"#
            ),
            (#"{"seq":1,"epoch":"e1","status":"failure"}"#, #"a failure State needs an "error" object"#),
            (#"{"seq":1,"epoch":"e1","status":"failure","error":{"code":-32001}}"#, #"a failure's "error" has no "message""#),
        ])
    func invalidStates(json: String, message: String) throws {
        let value = try JSONParser.parse(json)
        #expect(throws: WireDecodingError(message)) { try WireState(decoding: value) }
    }
}

extension PublishedState: CustomTestStringConvertible {
    public var testDescription: String { "seq \(seq): \(state.status)" }
}
