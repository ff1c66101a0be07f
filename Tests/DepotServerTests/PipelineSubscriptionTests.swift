import DepotClient
import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import DepotRPC
import DepotTestSupport
import DepotWire
import Foundation
import Testing

@testable import DepotServer

/// Items of several types, so that filters keep some and drop others.
private func pokemon() -> [JSONValue] {
    let types = ["fire", "water", "grass"]
    return (1...12).map { number in
        [
            "id": .number(JSONNumber(number)), "name": .string("p\(number)"), "type": .string(types[number % 3]),
            "hp": .number(JSONNumber(number * 10)), "stats": ["speed": .number(JSONNumber(100 - number))],
        ]
    }
}

private func decoded(_ text: String) throws -> Pipeline {
    try Pipeline(decoding: try JSONParser.parse(Array(text.utf8)))
}

/// What `pipeline` makes of `items` (a success state), computed here by the pipeline module alone.
private func expected(_ pipeline: Pipeline, _ items: [JSONValue]) throws -> [JSONValue] {
    let collection = try ItemCollection(values: items, idField: "id")
    var run = PipelineRun(pipeline, idField: "id")
    let shaped = run.shape(PublishedState(seq: 1, state: .success(collection, .source(at: .now))))
    return try (shaped?.state.items?.items ?? []).map { try $0.value }
}

@Suite("Server: subscriptions through pipelines")
struct PipelineSubscriptionTests {
    static let fire = #"[{"op":"filter","where":{"field":"/type","eq":"fire"}},{"op":"select","fields":["/name"]}]"#
    static let strong = #"[{"op":"filter","where":{"field":"/hp","ge":60}},{"op":"sort","by":"/stats/speed"},{"op":"limit","count":3}]"#

    @Test("two subscribers with different pipelines each see exactly their view, through loads, removals and a wipe")
    func twoViews() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let pipelines = [try decoded(Self.fire), try decoded(Self.strong)]
            var mirrors: [CollectionMirror] = [CollectionMirror(), CollectionMirror()]
            var subscriptions: [DepotSubscription] = []
            for (index, pipeline) in pipelines.enumerated() {
                let mode: SubscriptionMode = index == 0 ? .snapshot : .delta
                subscriptions.append(try await server.connect().subscribe(SubscribeRequest(mode: mode, pipeline: .operators(pipeline))))
            }
            let control = try await server.connect()
            var random = SplitMix64(seed: 14)
            var items = pokemon()
            var lastSeq = try #require(try await control.call("load")["seq"]?.numberValue?.intValue)
            for step in 0..<12 {
                if step % 4 == 3 {
                    // A load where the source changed: one item edited, one added.
                    items[0] = ["id": 1, "name": "p1", "type": "fire", "hp": .number(JSONNumber(70 + step)), "stats": ["speed": 1]]
                    items.append(["id": .number(JSONNumber(100 + step)), "name": "new", "type": "fire", "hp": 90, "stats": ["speed": 0]])
                    server.source.items = items
                    lastSeq = try #require(try await control.call("load")["seq"]?.numberValue?.intValue)
                } else {
                    let victim = try #require(items.randomElement(using: &random))
                    items.removeAll { $0["id"] == victim["id"] }
                    let answer = try await control.call(
                        "remove", params: ["id": .string(victim["id"]?.numberValue?.literal ?? ""), "optimistic": true])
                    lastSeq = try #require(answer["seq"]?.numberValue?.intValue)
                }
                for index in mirrors.indices {
                    // Every state is a success or loading here, and each pipeline lets every one through.
                    for await change in subscriptions[index] {
                        try mirrors[index].apply(change)
                        if change.seq == lastSeq { break }
                    }
                    #expect(mirrors[index].status == "success")
                    #expect(mirrors[index].items == (try expected(pipelines[index], items)), "pipeline \(index) after step \(step)")
                }
            }
            // A wipe: idle passes both pipelines.
            _ = try await control.call("wipe")
            for index in mirrors.indices {
                for await change in subscriptions[index] {
                    try mirrors[index].apply(change)
                    if change.seq == lastSeq + 1 { break }
                }
                #expect(mirrors[index].status == "idle")
            }
        }
    }

    @Test("subscribers with equal pipelines share one evaluation and one encoding per state; the last to leave stops it")
    func shared() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            var connections: [DepotConnection] = []
            var subscriptions: [DepotSubscription] = []
            for index in 0..<6 {
                let connection = try await server.connect()
                // Written two ways: the canonical form makes them one pipeline.
                let text = index % 2 == 0 ? Self.fire : #"[{"where":{"eq":"fire","field":"/type"},"op":"filter"},{"fields":["/name"],"op":"select"}]"#
                subscriptions.append(try await connection.subscribe(SubscribeRequest(pipeline: .operators(try decoded(text)))))
                connections.append(connection)
            }
            #expect(server.server.fanout.pipelineCount == 1)
            let stats = try await connections[0].call("stats")
            #expect(stats["pipelines"]?.numberValue?.intValue == 1, "stats says so")
            let before = server.encodings.encodingCount
            _ = try await connections[0].call("load")
            for subscription in subscriptions {
                let changes = try await subscription.collect(untilSeq: 2)
                #expect(changes.last?.state["items"]?.arrayValue?.count == 4)
            }
            // The repository's stream: the idle and loading states retired into the replay ring (the load's answer
            // gives the count, which encodes no items). The pipeline's: its loading and success, once each for the six
            // subscribers.
            #expect(server.encodings.encodingCount - before == 2 + 2)
            for (connection, subscription) in zip(connections, subscriptions) {
                #expect(try await connection.unsubscribe(subscription.id))
            }
            #expect(server.server.fanout.pipelineCount == 1, "it lingers a while, for clients that resume")
        }
    }

    @Test("a client that reconnects resumes through its pipeline: exactly the states it let out since, in delta mode")
    func resume() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            _ = try await control.call("load")
            let pipeline = try decoded(Self.strong)
            let first = try await server.connect()
            let subscription = try await first.subscribe(SubscribeRequest(mode: .delta, pipeline: .operators(pipeline)))
            var mirror = CollectionMirror()
            var iterator = subscription.makeAsyncIterator()
            try mirror.apply(try #require(await iterator.next()))
            let held = try #require(mirror.resumePoint)
            await first.close()

            // While it is away: removals, one of which the pipeline's view does not show, and a load.
            var items = pokemon()
            for id in [12, 2, 9] {
                items.removeAll { $0["id"]?.numberValue?.intValue == id }
                _ = try await control.call("remove", params: ["id": .string(String(id)), "optimistic": true])
            }
            let last = try #require(try await control.call("load")["seq"]?.numberValue?.intValue)

            let again = try await server.connect().subscribe(SubscribeRequest(mode: .delta, since: held, pipeline: .operators(pipeline)))
            #expect(again.subscribed.resumed)
            var replayed: [StateChange] = []
            for await change in again {
                replayed.append(change)
                try mirror.apply(change)
                if change.seq == last { break }
            }
            #expect(replayed.allSatisfy { !$0.resync })
            #expect(replayed.first?.seq == held.seq + 1, "the first state after the one it held")
            #expect(mirror.items == (try expected(pipeline, items)))
            // Another epoch cannot resume.
            let other = try await server.connect().subscribe(
                SubscribeRequest(mode: .delta, since: ResumePoint(epoch: "elsewhere", seq: held.seq), pipeline: .operators(pipeline)))
            #expect(!other.subscribed.resumed)
        }
    }

    @Test(
        "random loads and removals, a client that drops its connection at random points and resumes: it always ends with the view",
        arguments: [SubscriptionMode.delta, .snapshot])
    func resumeAtRandom(mode: SubscriptionMode) async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            _ = try await control.call("load")
            let pipeline = try decoded(
                #"[{"op":"filter","where":{"field":"/hp","ge":40}},{"op":"select","fields":["/hp"]},{"op":"removeDuplicates"}]"#)
            var items = pokemon()
            var random = SplitMix64(seed: mode == .delta ? 7 : 8)
            var mirror = CollectionMirror()
            var since: ResumePoint?
            var resumes = 0
            var nextID = 100
            for round in 0..<12 {
                let connection = try await server.connect()
                let subscription = try await connection.subscribe(SubscribeRequest(mode: mode, since: since, pipeline: .operators(pipeline)))
                if subscription.subscribed.resumed { resumes += 1 }
                var iterator = subscription.makeAsyncIterator()
                // Changes while connected, then read until the mirror shows the view.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    if Bool.random(using: &random), let victim = items.randomElement(using: &random) {
                        items.removeAll { $0["id"] == victim["id"] }
                        _ = try await control.call("remove", params: ["id": .string(victim["id"]?.numberValue?.literal ?? ""), "optimistic": true])
                    } else {
                        nextID += 1
                        items.append(["id": .number(JSONNumber(nextID)), "name": "new", "type": "fire", "hp": .number(JSONNumber(30 + round * 3))])
                        server.source.items = items
                        _ = try await control.call("load")
                    }
                }
                let view = try expected(pipeline, items)
                while mirror.items != view || mirror.status != "success" {
                    try mirror.apply(try #require(await iterator.next()))
                }
                since = mirror.resumePoint
                await connection.close()
                // Changes while away.
                if Bool.random(using: &random), let victim = items.randomElement(using: &random) {
                    items.removeAll { $0["id"] == victim["id"] }
                    _ = try await control.call("remove", params: ["id": .string(victim["id"]?.numberValue?.literal ?? "")])
                }
            }
            #expect(resumes > 6, "most reconnections resume (\(resumes) of 11)")
        }
    }

    @Test("depotd runs a bounded number of distinct pipelines; one more is limitExceeded, an equal one still joins")
    func boundedPipelines() async throws {
        try await withServer { server in
            var connections: [DepotConnection] = []
            for number in 0..<StateFanout.maxPipelines {
                if number % 64 == 0 { connections.append(try await server.connect()) }
                let pipeline = try decoded(#"[{"op":"limit","count":\#(number)}]"#)
                _ = try await connections[number / 64].subscribe(SubscribeRequest(pipeline: .operators(pipeline)))
            }
            let extra = try await server.connect()
            await #expect {
                try await extra.subscribe(SubscribeRequest(pipeline: .operators(try decoded(#"[{"op":"limit","count":100000}]"#))))
            } throws: { error in
                guard case .remote(let remote) = error as? DepotClientError else { return false }
                return remote.code == -32004 && remote.message.contains("distinct pipelines, the most it may")
            }
            _ = try await extra.subscribe(SubscribeRequest(pipeline: .operators(try decoded(#"[{"op":"limit","count":7}]"#))))
            #expect(server.server.fanout.pipelineCount == StateFanout.maxPipelines)
        }
    }

    @Test("an invalid pipeline is refused with the operator's index and a pointer into the params; nothing is subscribed")
    func refused() async throws {
        try await withServer { server in
            let connection = try await server.connectLines()
            try await connection.send(
                #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"pipeline":[{"op":"limit","count":1},{"op":"filter","where":{"field":"type","eq":1}}]}}"#
            )
            var lines = connection.lines.makeAsyncIterator()
            let answer = try await connection.nextMessage(&lines)
            #expect(answer["error"]?["code"] == -32602)
            let message = answer["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("operator 1 at /1/where/field"), "\(message)")
            #expect(message.contains("\"type\" is not a JSON Pointer"), "\(message)")
            #expect(answer["error"]?["data"] == "/pipeline/1/where/field")
            #expect(server.server.fanout.pipelineCount == 0)
            #expect(server.server.fanout.subscriberCount == 0)
        }
    }

    @Test("a pipeline whose statuses hold the current state back sends nothing until a state passes; seq stays the repository's")
    func statusesGate() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let subscription = try await server.connect().subscribe(
                SubscribeRequest(pipeline: .operators(try decoded(#"[{"op":"statuses","in":["failure"]}]"#))))
            #expect(subscription.subscribed.seq == 0)
            let control = try await server.connect()
            _ = try await control.call("load")
            server.source.failNextFetch()
            _ = try? await control.call("load")
            var iterator = subscription.makeAsyncIterator()
            let first = try #require(await iterator.next())
            #expect(first.status == "failure")
            #expect(first.seq == 4, "idle, loading, success and loading were held back: a gap in seq, not a loss")
            #expect(first.skipped == 0)
        }
    }

    @Test("state and get answer through a pipeline's item operators once")
    func readsThroughAPipeline() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            _ = try await control.call("load")
            let pipeline = PipelineReference.operators(
                try decoded(
                    #"[{"op":"statuses","in":["failure"]},{"op":"filter","where":{"field":"/type","eq":"fire"}},{"op":"select","fields":["/name"]}]"#)
            )
            let state = try await control.call(StateRequest(pipeline: pipeline))
            #expect(state.status == .success, "statuses does not apply to one answer")
            #expect(state.items?.count == 4)
            #expect(state.items?.first == ["id": 3, "name": "p3"])
            #expect(try await control.call(GetRequest(id: "6", pipeline: pipeline)) == ["id": 6, "name": "p6"])
            await #expect(throws: DepotClientError.self) { try await control.call(GetRequest(id: "1", pipeline: pipeline)) }
        }
    }
}

@Suite("Server: named pipelines")
struct NamedPipelineTests {
    static let fire = #"[{"op":"filter","where":{"field":"/type","eq":"fire"}},{"op":"select","fields":["/name"]}]"#
    static let water = #"[{"op":"filter","where":{"field":"/type","eq":"water"}},{"op":"sort","by":"/hp","order":"desc"}]"#

    func put(_ control: DepotConnection, _ name: String, _ text: String) async throws -> Bool {
        try await control.call(PipelinesPutRequest(NamedPipeline(name: name, pipeline: try decoded(text))))
    }

    @Test("put, get, list and delete; an unknown name is notFound; a bad one is refused")
    func library() async throws {
        try await withServer { server in
            let control = try await server.connect()
            #expect(try await put(control, "fire", Self.fire))
            #expect(try await !put(control, "fire", Self.fire))
            #expect(try await put(control, "water", Self.water))
            let fire = try await control.call(PipelinesGetRequest(name: "fire"))
            #expect(fire.named.pipeline == (try decoded(Self.fire)) && !fire.readOnly)
            #expect(try await control.call(PipelinesListRequest()).map(\.named.name) == ["fire", "water"])
            #expect(try await control.call(PipelinesDeleteRequest(name: "water")))
            await #expect(throws: DepotClientError.self) { try await control.call(PipelinesGetRequest(name: "water")) }
            await #expect(throws: DepotClientError.self) { try await control.call(PipelinesDeleteRequest(name: "water")) }
            await #expect(throws: DepotClientError.self) { try await control.call(SubscribeRequest(pipeline: .named("water"))) }
            await #expect {
                try await control.call("pipelines.get", params: ["name": "../etc"])
            } throws: { error in
                guard case .remote(let remote) = error as? DepotClientError else { return false }
                return remote.code == -32602 && remote.message.contains("a pipeline's name is 1 to 64 letters")
            }
        }
    }

    @Test("changing a named pipeline applies live: each subscriber gets the current state through it at once, marked, in full")
    func liveEdit() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            _ = try await control.call("load")
            #expect(try await put(control, "view", Self.fire))
            var subscriptions: [DepotSubscription] = []
            var mirrors = [CollectionMirror(), CollectionMirror()]
            for mode in [SubscriptionMode.snapshot, .delta] {
                subscriptions.append(try await server.connect().subscribe(SubscribeRequest(mode: mode, pipeline: .named("view"))))
            }
            #expect(server.server.fanout.subscriberCount(ofPipeline: "view") == 2)
            var iterators = subscriptions.map { $0.makeAsyncIterator() }
            for index in iterators.indices {
                let first = try #require(await iterators[index].next())
                try mirrors[index].apply(first)
                #expect(mirrors[index].items == (try expected(try decoded(Self.fire), pokemon())))
            }
            // A removal through the old pipeline, then the change.
            _ = try await control.call("remove", params: ["id": "3", "optimistic": true])
            #expect(try await !put(control, "view", Self.water))
            for index in iterators.indices {
                var change = try #require(await iterators[index].next())
                while !change.pipelineChanged {
                    try mirrors[index].apply(change)
                    change = try #require(await iterators[index].next())
                }
                #expect(change.delta == nil, "in full")
                try mirrors[index].apply(change)
                let remaining = pokemon().filter { $0["id"] != 3 }
                #expect(mirrors[index].items == (try expected(try decoded(Self.water), remaining)))
            }
            // Later states go through the new pipeline, as deltas again in delta mode.
            let removed = try await control.call("remove", params: ["id": "4", "optimistic": true])
            let last = try #require(removed["seq"]?.numberValue?.intValue)
            for index in iterators.indices {
                var change = try #require(await iterators[index].next())
                while change.seq != last {
                    try mirrors[index].apply(change)
                    change = try #require(await iterators[index].next())
                }
                try mirrors[index].apply(change)
                #expect(!change.pipelineChanged)
                if index == 1 { #expect(change.delta != nil) }
                let remaining = pokemon().filter { $0["id"] != 3 && $0["id"] != 4 }
                #expect(mirrors[index].items == (try expected(try decoded(Self.water), remaining)))
            }
        }
    }

    @Test("deleting a named pipeline ends its subscriptions with subscriptionEnded; the connection stays open")
    func deleteEnds() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            #expect(try await put(control, "gone", Self.fire))
            let connection = try await server.connect()
            let subscription = try await connection.subscribe(SubscribeRequest(pipeline: .named("gone")))
            let plain = try await connection.subscribe()
            #expect(try await control.call(PipelinesDeleteRequest(name: "gone")))
            var changes: [StateChange] = []
            for await change in subscription {
                changes.append(change)
            }
            #expect(changes.last?.ended?.reason == "the pipeline \"gone\" was deleted")
            #expect(changes.dropLast().allSatisfy { $0.ended == nil && $0.status != nil })
            #expect(server.server.fanout.pipelineCount == 0)
            // The connection and its other subscription go on.
            _ = try await control.call("load")
            let states = try await plain.collect(untilSeq: 2)
            #expect(states.last?.status == "success")
            #expect(try await connection.unsubscribe(subscription.id) == false, "already ended")
        }
    }

    @Test("state and get take a pipeline's name")
    func readsByName() async throws {
        try await withServer(source: TestSource(items: pokemon())) { server in
            let control = try await server.connect()
            _ = try await control.call("load")
            #expect(try await put(control, "fire", Self.fire))
            #expect(try await control.call(StateRequest(pipeline: .named("fire"))).items?.count == 4)
            #expect(try await control.call(GetRequest(id: "3", pipeline: .named("fire"))) == ["id": 3, "name": "p3"])
            await #expect(throws: DepotClientError.self) { try await control.call(StateRequest(pipeline: .named("nope"))) }
        }
    }
}
