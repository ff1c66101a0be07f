import DepotCore
import DepotJSON
import DepotPipeline
import DepotWire
import Foundation
import Testing

@Suite("PipelineRun")
struct PipelineRunTests {
    static let pokemon = [
        #"{"id":1,"name":"Bulbasaur","type":"grass","hp":45,"stats":{"speed":45,"attack":49}}"#,
        #"{"id":4,"name":"Charmander","type":"fire","hp":39,"stats":{"speed":65,"attack":52}}"#,
        #"{"id":6,"name":"Charizard","type":"fire","hp":78,"stats":{"speed":100,"attack":84}}"#,
        #"{"id":25,"name":"Pikachu","type":"electric","hp":35,"stats":{"speed":90}}"#,
        #"{"id":37,"name":"Vulpix","type":"fire","hp":3.8e1}"#,
        #"{"id":"x","type":"fire"}"#,
    ]
    static let start = ContinuousClock.now

    func run(_ text: String) throws -> PipelineRun {
        PipelineRun(try pipeline(text), idField: "id")
    }

    @Test("filter, select, sort and limit, by hand")
    func itemOperators() throws {
        var run = try run(
            #"[{"op":"filter","where":{"field":"/type","eq":"fire"}},{"op":"select","fields":["/name","/stats/speed"]},{"op":"sort","by":"/name"},{"op":"limit","count":3}]"#
        )
        let out = run.receive(success(1, Self.pokemon), at: Self.start)
        #expect(out.map(\.seq) == [1])
        // Sorted by name: Charizard, Charmander, Vulpix; "x" has no name and sorts last, cut by the limit.
        #expect(
            texts(out.first) == [
                #"{"id":6,"name":"Charizard","stats":{"speed":100}}"#,
                #"{"id":4,"name":"Charmander","stats":{"speed":65}}"#,
                #"{"id":37,"name":"Vulpix"}"#,
            ])
    }

    @Test("select keeps the item's member order and the id, and nothing a pointer cannot reach through objects")
    func select() throws {
        var run = try run(#"[{"op":"select","fields":["/stats/attack","/name","/tags/0","/missing"]}]"#)
        let out = run.receive(
            success(1, [#"{"name":"A","tags":["t"],"id":"a","stats":{"attack":1,"speed":2}}"#, #"{"id":"b","stats":3}"#]), at: Self.start)
        #expect(texts(out.first) == [#"{"name":"A","id":"a","stats":{"attack":1}}"#, #"{"id":"b"}"#])
    }

    @Test("sort: numbers by value, descending, ties and items without the member keep their order, and types in a fixed order")
    func sort() throws {
        let items = [
            #"{"id":"a","v":10}"#, #"{"id":"b","v":"10"}"#, #"{"id":"c"}"#, #"{"id":"d","v":1e1}"#, #"{"id":"e","v":9.5}"#,
            #"{"id":"f","v":true}"#, #"{"id":"g","v":null}"#, #"{"id":"h","v":false}"#, #"{"id":"i","v":[1]}"#, #"{"id":"j"}"#,
        ]
        var ascending = try run(#"[{"op":"sort","by":"/v"}]"#)
        #expect(ids(ascending.receive(success(1, items), at: Self.start).first) == ["e", "a", "d", "b", "h", "f", "g", "i", "c", "j"])
        var descending = try run(#"[{"op":"sort","by":"/v","order":"desc"}]"#)
        #expect(ids(descending.receive(success(1, items), at: Self.start).first) == ["i", "g", "f", "h", "b", "a", "d", "e", "c", "j"])
    }

    @Test("states other than success pass the item operators unchanged; statuses holds back the others")
    func statuses() throws {
        var run = try run(#"[{"op":"filter","where":{"field":"/type","eq":"fire"}},{"op":"statuses","in":["success","failure"]}]"#)
        let failure = PublishedState(seq: 2, state: .failure(StateError(.loadFailed, message: "down")))
        #expect(run.receive(PublishedState(seq: 1, state: .loading), at: Self.start).isEmpty)
        #expect(run.receive(failure, at: Self.start) == [failure])
        #expect(ids(run.receive(success(3, Self.pokemon), at: Self.start).first) == ["4", "6", "37", "x"])
    }

    @Test("a removal gives what a full evaluation of the smaller list gives, for every operator that shapes items")
    func removalsMatchFullEvaluation() throws {
        let text =
            #"[{"op":"filter","where":{"field":"/hp","ge":38}},{"op":"select","fields":["/name"]},{"op":"sort","by":"/name","order":"desc"},{"op":"limit","count":2}]"#
        var incremental = try run(text)
        var items = collection(Self.pokemon)
        _ = incremental.receive(PublishedState(seq: 1, state: .success(items, .source(at: .now))), at: Self.start)
        for (seq, id) in zip(2..., ["4", "x", "6", "1", "37", "25"]) {
            items = items.removing(id: id)
            let state = PublishedState(seq: seq, state: .success(items, .source(at: .now)))
            var fresh = try run(text)
            let expected = fresh.receive(state, at: Self.start)
            #expect(incremental.receive(state, at: Self.start) == expected, "after removing \(id)")
        }
    }

    @Test("a reload of the same items parses none again and gives the same result; a changed item is recomputed")
    func reloads() throws {
        var run = try run(#"[{"op":"filter","where":{"field":"/hp","gt":40}}]"#)
        #expect(ids(run.receive(success(1, Self.pokemon), at: Self.start).first) == ["1", "6"])
        #expect(ids(run.receive(success(2, Self.pokemon), at: Self.start).first) == ["1", "6"])
        var changed = Self.pokemon
        changed[3] = #"{"id":25,"name":"Pikachu","type":"electric","hp":41}"#
        #expect(ids(run.receive(success(3, changed), at: Self.start).first) == ["1", "6", "25"])
    }

    @Test("removeDuplicates: a result equal to the last one sent is held back; fetch time does not count, staleness does")
    func removeDuplicates() throws {
        var run = try run(#"[{"op":"filter","where":{"field":"/type","eq":"grass"}},{"op":"removeDuplicates"}]"#)
        #expect(run.receive(success(1, Self.pokemon), at: Self.start).map(\.seq) == [1])
        // Another fire pokémon is gone: the grass view did not change.
        #expect(run.receive(success(2, Array(Self.pokemon.dropLast())), at: Self.start).isEmpty)
        #expect(run.receive(success(3, Array(Self.pokemon.dropLast()), stale: true), at: Self.start).map(\.seq) == [3])
        #expect(run.receive(PublishedState(seq: 4, state: .loading), at: Self.start).map(\.seq) == [4])
        #expect(run.receive(PublishedState(seq: 5, state: .loading), at: Self.start).isEmpty)
        #expect(run.receive(success(6, Self.pokemon, stale: true), at: Self.start).map(\.seq) == [6])
    }

    @Test("throttle: the first state at once, then at most one per interval, the latest of those that came")
    func throttle() throws {
        var run = try run(#"[{"op":"throttle","seconds":1}]"#)
        let t = Self.start
        #expect(run.receive(loading(1), at: t).map(\.seq) == [1])
        #expect(run.receive(loading(2), at: t + .milliseconds(100)).isEmpty)
        #expect(run.receive(loading(3), at: t + .milliseconds(500)).isEmpty)
        #expect(run.deadline == t + .seconds(1))
        #expect(run.advance(to: t + .milliseconds(999)).isEmpty)
        #expect(run.advance(to: t + .seconds(1)).map(\.seq) == [3], "the latest, never the stale one")
        #expect(run.deadline == nil)
        #expect(run.receive(loading(4), at: t + .milliseconds(1500)).isEmpty, "within an interval of the last one sent")
        // 4 was due at 2 s and goes out first (a late timer); 5 then waits an interval after it.
        #expect(run.receive(loading(5), at: t + .milliseconds(2100)).map(\.seq) == [4])
        #expect(run.deadline == t + .milliseconds(3100))
        #expect(run.advance(to: t + .milliseconds(3100)).map(\.seq) == [5])
        #expect(run.receive(loading(6), at: t + .seconds(5)).map(\.seq) == [6])
    }

    @Test("debounce: a state goes out once none followed it for the interval")
    func debounce() throws {
        var run = try run(#"[{"op":"debounce","seconds":0.5}]"#)
        let t = Self.start
        #expect(run.receive(loading(1), at: t).isEmpty)
        #expect(run.receive(loading(2), at: t + .milliseconds(400)).isEmpty)
        #expect(run.deadline == t + .milliseconds(900))
        #expect(run.advance(to: t + .milliseconds(899)).isEmpty)
        #expect(run.advance(to: t + .milliseconds(900)).map(\.seq) == [2])
        #expect(run.deadline == nil && run.advance(to: t + .seconds(10)).isEmpty)
    }

    @Test("delay: every state, the interval later, in order")
    func delay() throws {
        var run = try run(#"[{"op":"delay","seconds":1}]"#)
        let t = Self.start
        #expect(run.receive(loading(1), at: t).isEmpty)
        #expect(run.receive(loading(2), at: t + .milliseconds(300)).isEmpty)
        #expect(run.receive(loading(3), at: t + .milliseconds(600)).isEmpty)
        #expect(run.advance(to: t + .milliseconds(1300)).map(\.seq) == [1, 2])
        #expect(run.deadline == t + .milliseconds(1600))
        #expect(run.advance(to: t + .seconds(2)).map(\.seq) == [3])
    }

    @Test("operators run in order: a filter before removeDuplicates before a delay")
    func order() throws {
        var run = try run(#"[{"op":"statuses","in":["success"]},{"op":"removeDuplicates"},{"op":"delay","seconds":1}]"#)
        let t = Self.start
        #expect(run.receive(success(1, Self.pokemon), at: t).isEmpty)
        #expect(run.receive(loading(2), at: t).isEmpty)
        #expect(run.receive(success(3, Self.pokemon), at: t + .milliseconds(10)).isEmpty, "a duplicate: never delayed, dropped")
        #expect(run.advance(to: t + .seconds(2)).map(\.seq) == [1])
    }

    @Test("shape: the current state through the operators that shape it, now, whatever the timing operators hold")
    func shape() throws {
        var run = try run(#"[{"op":"statuses","in":["success"]},{"op":"limit","count":1},{"op":"delay","seconds":60}]"#)
        #expect(ids(run.shape(success(7, Self.pokemon))) == ["1"])
        #expect(run.shape(loading(8)) == nil)
    }

    func loading(_ seq: Int) -> PublishedState {
        PublishedState(seq: seq, state: .loading)
    }
}
