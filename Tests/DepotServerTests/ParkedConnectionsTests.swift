import DepotCore
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

@testable import DepotServer

/// The parked connections' shared log against a plain model: each connection holding its own list of every state
/// published since it parked, cut once when it unparks.
@Suite("ParkedConnections: one log for the connections whose socket is full, the same states as each holding its own")
struct ParkedConnectionsTests {
    /// A success state of `items` items of about 100 bytes each, of pipeline `pipeline`.
    static func frame(_ seq: Int, items: Int, pipeline: Int = 0) -> StateFrame {
        let values = (0..<items).map { JSONValue.object(["id": .string("\(seq)-\($0)"), "pad": .string(String(repeating: "x", count: 80))]) }
        let collection = try! ItemCollection(values: values, idField: "id")
        return StateFrame(
            PublishedState(seq: seq, state: .success(collection, .source(at: Date(timeIntervalSince1970: 0)))), epoch: "e", pipelineNumber: pipeline)
    }

    static func seqs(_ states: [StateFrame]?) -> [Int]? {
        states?.map(\.seq)
    }

    @Test("a connection parked holding some states gets them and every state recorded since, cut to the bounds")
    func unparkGivesHeldAndRecorded() {
        var parked = ParkedConnections()
        let connection = NSObject()
        let key = ObjectIdentifier(connection)
        let states = (1...6).map { Self.frame($0, items: 1) }
        parked.record([states[0]], limit: 4, byteLimit: 1 << 20)
        parked.park(key, holding: [states[0], states[1]])
        parked.record([states[1]], limit: 4, byteLimit: 1 << 20)  // recorded after it parked, though it holds it: not twice
        parked.record(Array(states[2...]), limit: 4, byteLimit: 1 << 20)
        #expect(Self.seqs(parked.unpark(key, limit: 4, byteLimit: 1 << 20)) == [3, 4, 5, 6], "the newest four")
        #expect(parked.isEmpty && parked.loggedStates == 0, "nothing kept once no one is parked")
        #expect(parked.unpark(key, limit: 4, byteLimit: 1 << 20) == nil, "unparked once")
        withExtendedLifetime(connection) {}
    }

    @Test("the byte bound keeps the newest of each pipeline, and always the newest")
    func byteBoundPerPipeline() {
        var parked = ParkedConnections()
        let connection = NSObject()
        let key = ObjectIdentifier(connection)
        parked.park(key, holding: [])
        let big = (1...3).map { Self.frame($0, items: 50) }  // about 5 KiB each
        let other = Self.frame(4, items: 1, pipeline: 1)
        parked.record(big + [other], limit: 100, byteLimit: 2_000)
        #expect(Self.seqs(parked.unpark(key, limit: 100, byteLimit: 2_000)) == [3, 4], "each pipeline's newest, though over the bound")
        withExtendedLifetime(connection) {}
    }

    @Test("a state costs the log the same however many connections are parked, and the log stays within the bounds")
    func logIsShared() {
        var parked = ParkedConnections()
        let connections = (0..<1_000).map { _ in NSObject() }
        let keys = connections.map(ObjectIdentifier.init)
        for key in keys { parked.park(key, holding: []) }
        for seq in 1...50 { parked.record([Self.frame(seq, items: 1)], limit: 8, byteLimit: 1 << 20) }
        #expect(parked.loggedStates == 8)
        #expect(parked.count == 1_000)
        for key in keys.dropLast() { #expect(Self.seqs(parked.unpark(key, limit: 8, byteLimit: 1 << 20)) == Array(43...50)) }
        parked.remove(keys.last!)
        #expect(parked.isEmpty && parked.loggedStates == 0)
        withExtendedLifetime(connections) {}
    }

    @Test("random parks, records, unparks and removals give each connection what its own list would", arguments: 0..<20)
    func againstModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var parked = ParkedConnections()
        var model: [ObjectIdentifier: [StateFrame]] = [:]
        let objects = (0..<6).map { _ in NSObject() }
        let keys = objects.map(ObjectIdentifier.init)
        let (limit, byteLimit) = (Int.random(in: 1...6, using: &random), Int.random(in: 500...6_000, using: &random))
        var seq = 0
        var recorded: [StateFrame] = []
        for _ in 0..<300 {
            let key = keys.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let batch = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                    seq += 1
                    return Self.frame(seq, items: Int.random(in: 0...20, using: &random), pipeline: Int.random(in: 0...1, using: &random))
                }
                recorded += batch
                parked.record(batch, limit: limit, byteLimit: byteLimit)
                for member in model.keys { model[member]! += batch }
            case 5..<7 where model[key] == nil:
                // Parks holding some of the latest states, already within the bounds, as the group does.
                let held = ParkedConnections.newestWithinBounds(
                    Array(recorded.suffix(Int.random(in: 0...3, using: &random))), limit: limit, byteLimit: byteLimit, state: \.self)
                parked.park(key, holding: held)
                model[key] = held
            case 7..<9:
                let expected = model.removeValue(forKey: key).map {
                    ParkedConnections.newestWithinBounds($0, limit: limit, byteLimit: byteLimit, state: \.self)
                }
                #expect(Self.seqs(parked.unpark(key, limit: limit, byteLimit: byteLimit)) == Self.seqs(expected), "seed \(seed)")
            default:
                parked.remove(key)
                model[key] = nil
            }
            #expect(parked.count == model.count)
            #expect(parked.loggedStates <= 2 * limit, "the log is cut to the bounds of its two pipelines")
            if model.isEmpty { #expect(parked.loggedStates == 0) }
        }
        withExtendedLifetime(objects) {}
    }
}
