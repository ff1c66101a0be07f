import DepotClient
import DepotJSON
import DepotOperators
import DepotTestSupport
import DepotWire
import Foundation
import Testing

/// Where the model test's items live: how the test names ids, reads what the source holds, and makes it refuse.
struct ModelSource: Sendable {
    /// The id value of the n-th item: an integer in a file, a string in a table.
    let idValue: @Sendable (Int) -> JSONValue
    /// The items the source holds now, read past depotd.
    let read: @Sendable () async throws -> [JSONValue]
    /// Whether the source keeps the items in an order depotd shows (a file), or in none (a table).
    let ordered: Bool
    /// Refusals: a file refuses every change while it is read-only; a table refuses an item whose `n` is negative
    /// (a CHECK constraint), so one change of several can be refused alone.
    let refusesOne: Bool
    let makeReadOnly: @Sendable (Bool) -> Void

    /// Whether the source refuses a change that leaves `item` (nil: a removal), read-only or not.
    func refuses(_ item: JSONValue?, readOnly: Bool) -> Bool {
        guard refusesOne else { return readOnly }
        return (item?["n"]?.numberValue?.intValue ?? 0) < 0
    }
}

extension WriteLoadTests {
    @Suite("depotd: random writes against a model, on a file and on PostgreSQL", .timeLimit(.minutes(10)))
    struct WriteModelEndToEndTests {
        static let tags: [JSONValue] = ["a", "ü ✓", "quote \" and \\ backslash", "line\nbreak", ""]

        @Test(
            "a file: after every put, patch, remove or apply — optimistic or not, refused or not — every mirror equals the state, and the file equals it"
        )
        func file() async throws {
            let directory = TemporaryDirectory()
            let path = directory.file("items.json")
            // As `json.dump(items, f, indent=2)` writes it: a write must keep that layout, and the file must parse after each.
            let items = (1...30).map { #"  {\#n    "id": \#($0),\#n    "n": \#($0),\#n    "tag": "t"\#n  }"# }
            directory.write("items.json", "[\n" + items.joined(separator: ",\n") + "\n]")
            let source = ModelSource(
                idValue: { .number(JSONNumber($0)) },
                read: { try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).arrayValue ?? [] },
                ordered: true, refusesOne: false, makeReadOnly: { chmod(path, $0 ? 0o444 : 0o644) })
            try await withDaemon(["--source", "file:" + path], directory: directory, timeout: .seconds(540)) { daemon in
                try await Self.run(daemon, source, initial: 30, steps: 160, seed: 39)
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let misfits = text.split(separator: "\n").filter { line in
                    !["[", "]", "  {", "  }", "  },"].contains(line) && !line.hasPrefix("    ")
                }
                #expect(misfits.isEmpty, "the file keeps its indented layout, one member a line: \(misfits.prefix(3))")
            }
        }

        @Test(
            "PostgreSQL: after every write every mirror equals the state, and the table equals it; a refused change in a burst rolls back alone",
            .enabled(if: PostgresCluster.unavailableReason == nil || PostgresCluster.mustRun))
        func postgres() async throws {
            let cluster = try await PostgresCluster.start()
            do {
                try await cluster.psql(
                    """
                    CREATE TABLE items (id text PRIMARY KEY, doc json NOT NULL, CHECK (coalesce((doc->>'n')::int, 0) >= 0));
                    INSERT INTO items SELECT 'r' || g, json_build_object('id', 'r' || g, 'n', g, 'tag', 't') FROM generate_series(1, 30) g;
                    """)
                let source = ModelSource(
                    idValue: { .string("r\($0)") },
                    read: {
                        try await cluster.psql("SELECT doc FROM items").split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
                    },
                    ordered: false, refusesOne: true, makeReadOnly: { _ in })
                try await withDaemon(["--source", cluster.sourceURI()], timeout: .seconds(540)) { daemon in
                    try await Self.run(daemon, source, initial: 30, steps: 120, seed: 3900)
                }
            } catch {
                Issue.record("\(error)\n\(cluster.serverLog.suffix(2000))")
            }
            await cluster.remove()
        }

        /// A random sequence of `steps` calls — one change, a batch, or a burst of optimistic changes from several
        /// connections at once — each checked against the model: its answer, then the state, every subscriber's mirror
        /// (two in delta mode, one in snapshot mode) and what the source holds.
        static func run(_ daemon: Daemon, _ source: ModelSource, initial: Int, steps: Int, seed: UInt64) async throws {
            var random = SplitMix64(seed: seed)
            let control = try await daemon.connect()
            let first = try await control.call(LoadRequest(items: true))
            var model = WriteModel(items: itemsByID(first.items ?? []))
            #expect(model.items.count == initial)
            var subscribers: [MirroringSubscriber] = []
            for mode in [SubscriptionMode.delta, .delta, .snapshot] {
                subscribers.append(try await MirroringSubscriber(try await daemon.connect(), SubscribeRequest(mode: mode)))
            }
            var writers: [DepotConnection] = []
            for _ in 0..<4 { writers.append(try await daemon.connect()) }
            var etagsSeen: Set<String> = ["00000000000000000000000000000000"]
            var nextID = initial + 1
            var made = 0
            var refusedCodes: [Int: Int] = [:]

            /// A change to a random item — held, new, or gone — with a random operation and precondition.
            func randomChange(avoiding taken: Set<String>, refusing: Bool) async throws -> WriteModel.Change {
                let held = model.items.keys.sorted().filter { !taken.contains($0) }
                let number: Int
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<13 where !held.isEmpty:
                    let id = held.randomElement(using: &random)!
                    number = Int(id.drop { !$0.isNumber })!
                case 13..<18:
                    number = nextID
                    nextID += 1
                default:
                    number = Int.random(in: 1..<nextID, using: &random)
                }
                let idValue = source.idValue(number)
                let id = idValue.stringValue ?? "\(number)"
                let current = model.items[id]
                var etag: String?
                if current != nil {
                    let answer = try await control.call(GetRequest(id: id, meta: true))
                    etag = answer["etag"]?.stringValue
                    #expect(answer["item"]?.jsonText == current?.jsonText, "get answers the item the model holds")
                    etagsSeen.formUnion(etag.map { [$0] } ?? [])
                }
                let n = refusing ? -1 : Int.random(in: 0..<1000, using: &random)
                let operation: WriteModel.Change.Operation
                switch (current != nil, Int.random(in: 0..<20, using: &random)) {
                case (true, 0..<7), (false, 0..<14):
                    let tag = tags.randomElement(using: &random)!
                    operation = .put(
                        Bool.random(using: &random)
                            ? ["id": idValue, "n": .number(JSONNumber(n)), "tag": tag] : ["tag": tag, "n": .number(JSONNumber(n)), "id": idValue])
                case (true, 7..<15), (false, 14..<17):
                    let patches: [JSONValue] = [
                        ["n": .number(JSONNumber(n))], ["tag": nil, "n": .number(JSONNumber(n))], ["extra": ["k": .number(JSONNumber(n))]],
                    ]
                    operation = .patch(patches.randomElement(using: &random)!)
                default:
                    operation = .remove
                }
                let precondition: WriteModel.Change.Precondition
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<5 where etag != nil: precondition = .ifMatch(etag!)
                case 5..<7: precondition = .stale(etagsSeen.filter { $0 != etag }.sorted().randomElement(using: &random)!)
                case 7..<10: if case .put = operation { precondition = .ifAbsent } else { precondition = .none }
                default: precondition = .none
                }
                return WriteModel.Change(id: id, idValue: idValue, operation: operation, precondition: precondition)
            }

            /// Sends `changes` as one call (put, patch or remove alone, or apply) and answers its error code, nil when made.
            func send(_ changes: [WriteModel.Change], on connection: DepotConnection, optimistic: Bool, asApply: Bool) async throws -> Int? {
                try await errorCode {
                    if asApply || changes.count > 1 {
                        let answer = try await connection.call(ApplyRequest(changes: changes.map(\.wire), optimistic: optimistic))
                        for etag in answer.etags { if let etag { etagsSeen.insert(etag) } }
                        return
                    }
                    let change = changes[0].wire
                    switch change.operation {
                    case .put: etagsSeen.insert(try await connection.call(PutRequest(change: change, optimistic: optimistic, items: false)).etag)
                    case .patch: etagsSeen.insert(try await connection.call(PatchRequest(change: change, optimistic: optimistic, items: false)).etag)
                    case .remove: _ = try await connection.call(RemoveRequest(id: change.id, optimistic: optimistic, ifMatch: change.ifMatch))
                    }
                }
            }

            for step in 0..<steps {
                let optimistic = Bool.random(using: &random)
                if Int.random(in: 0..<5, using: &random) == 0 {
                    // A burst: optimistic changes to different items from several connections at once, some refused by a
                    // table; each is made or refused alone, whatever the others do.
                    var changes: [WriteModel.Change] = []
                    for _ in 0..<Int.random(in: 2...4, using: &random) {
                        let refusing = source.refusesOne && Int.random(in: 0..<4, using: &random) == 0
                        changes.append(try await randomChange(avoiding: Set(changes.map(\.id)), refusing: refusing))
                    }
                    let expected = changes.map { change in
                        model.outcome(of: [change]) { source.refuses($1, readOnly: false) }
                    }
                    let codes = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                        for (index, change) in changes.enumerated() {
                            let connection = writers[index]
                            group.addTask {
                                let code = try await errorCode {
                                    let wire = change.wire
                                    switch wire.operation {
                                    case .put: _ = try await connection.call(PutRequest(change: wire, optimistic: true, items: false))
                                    case .patch: _ = try await connection.call(PatchRequest(change: wire, optimistic: true, items: false))
                                    case .remove: _ = try await connection.call(RemoveRequest(id: wire.id, optimistic: true, ifMatch: wire.ifMatch))
                                    }
                                }
                                return (index, code)
                            }
                        }
                        var codes = [Int?](repeating: nil, count: changes.count)
                        for try await (index, code) in group { codes[index] = code }
                        return codes
                    }
                    for (index, change) in changes.enumerated() {
                        switch expected[index] {
                        case .made(let after):
                            #expect(codes[index] == nil, "step \(step), burst: \(change) should be made")
                            model.items[change.id] = after[change.id]
                            made += 1
                        case .refused(let code):
                            #expect(codes[index] == code, "step \(step), burst: \(change) should fail with \(code)")
                            refusedCodes[code, default: 0] += 1
                        }
                    }
                } else {
                    let batch = Int.random(in: 0..<4, using: &random) == 0
                    let refusing = Int.random(in: 0..<8, using: &random) == 0
                    var changes: [WriteModel.Change] = []
                    for _ in 0..<(batch ? Int.random(in: 1...3, using: &random) : 1) {
                        changes.append(try await randomChange(avoiding: Set(changes.map(\.id)), refusing: refusing && source.refusesOne))
                    }
                    let expected = model.outcome(of: changes) { source.refuses($1, readOnly: refusing) }
                    if refusing { source.makeReadOnly(true) }
                    let code = try await send(changes, on: writers[0], optimistic: optimistic, asApply: batch)
                    if refusing { source.makeReadOnly(false) }
                    let what = "step \(step): \(batch ? "apply" : "") \(changes) \(optimistic ? "optimistic" : "")"
                    switch expected {
                    case .made(let after):
                        #expect(code == nil, "\(what) should be made")
                        model.items = after
                        made += 1
                    case .refused(let expectedCode):
                        #expect(code == expectedCode, "\(what) should fail with \(expectedCode)")
                        refusedCodes[expectedCode, default: 0] += 1
                    }
                }
                try await verify(step: step, control: control, subscribers: subscribers, source: source, model: model)
            }
            // The sequence did what it is for: many changes made, and refused for each reason.
            #expect(made > steps / 2, "\(made) calls made")
            for code in [DepotErrorCode.conflict, DepotErrorCode.notFound, DepotErrorCode.changeFailed] {
                #expect(refusedCodes[code, default: 0] >= 3, "\(refusedCodes)")
            }
            let changes = subscribers[0].progress.value.changes
            #expect(changes.filter { $0.delta != nil }.count > steps / 2, "the delta subscriber was sent deltas")
        }

        /// The state, every mirror and the source after a step: all as the model says.
        static func verify(
            step: Int, control: DepotConnection, subscribers: [MirroringSubscriber], source: ModelSource, model: WriteModel
        ) async throws {
            let state = try await control.call(StateRequest())
            #expect(state.status == .success, "step \(step)")
            #expect(state.provenance?.pending == 0, "step \(step): nothing pending once every call is answered")
            let items = state.items ?? []
            expectItems(itemsByID(items), model.items, "step \(step): the state holds what the model does")
            for (index, subscriber) in subscribers.enumerated() {
                let progress = try await subscriber.mirror(atSeq: state.seq)
                #expect(progress.problem == nil, "subscriber \(index), step \(step): \(progress.problem ?? "")")
                #expect(progress.seq == state.seq, "subscriber \(index), step \(step): no state after the last")
                expectItems(
                    itemsByID(progress.mirror.items), itemsByID(items), "subscriber \(index), step \(step): the mirror's items are the state's")
                #expect(progress.mirror.items.map { $0["id"] } == items.map { $0["id"] }, "subscriber \(index), step \(step): in order")
            }
            let stored = try await source.read()
            if source.ordered {
                expectItems(itemsByID(stored), itemsByID(items), "step \(step): the source holds the state's items")
                #expect(stored.map { $0["id"] } == items.map { $0["id"] }, "step \(step): in the state's order")
            } else {
                expectItems(itemsByID(stored), model.items, "step \(step): the source holds the state's items")
            }
        }
    }
}
