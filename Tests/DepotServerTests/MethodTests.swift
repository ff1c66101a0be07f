import DepotCore
import DepotJSON
import DepotPlatform
import DepotRPC
import DepotTestSupport
import DepotWire
import Logging
import Testing

@testable import DepotServer

/// A session in memory: the subscriptions it was asked for and the mutations it noted.
final class RecordingSession: DepotSession {
    var peer: PeerCredentials? = PeerCredentials(pid: 4242, uid: 1000, gid: 1000)
    var requester = Requester(user: 1000, connection: 1)
    var subscriptions: [String] = []
    var maxSubscriptions = 2
    var notes: [String] = []
    /// The outcomes the notes logged, as they came.
    let outcomes = Condition<[String]>([])
    /// The requests `subscribe` was given.
    var subscribeRequests: [SubscribeRequest] = []

    func subscribe(_ request: SubscribeRequest) throws(RPCError) -> SubscriptionStart {
        guard subscriptions.count < maxSubscriptions else { throw .tooManySubscriptions(most: maxSubscriptions) }
        let id = "m\(subscriptions.count + 1)"
        subscriptions.append(id)
        subscribeRequests.append(request)
        return SubscriptionStart(id: id, epoch: "e1", seq: 7, resumed: request.since?.epoch == "e1")
    }

    func unsubscribe(_ id: String) -> Bool {
        guard let index = subscriptions.firstIndex(of: id) else { return false }
        subscriptions.remove(at: index)
        return true
    }

    func noteMutation(_ method: String, _ detail: String) -> MutationNote {
        let request = detail.isEmpty ? method : "\(method) \(detail)"
        notes.append(request)
        let outcomes = outcomes
        return MutationNote { outcome in outcomes.update { $0.append("\(request): \(outcome)") } }
    }
}

/// Depot's methods on a repository and a fan-out with no event loop, dispatched with a `RecordingSession`.
struct MethodBench {
    let source: TestSource
    let repository: Repository
    let fanout = StateFanout(eventLoops: [], epoch: "e1")
    let dispatcher: RPCDispatcher<any DepotSession>
    let session = RecordingSession()

    init(source: TestSource = TestSource(count: 3), access: AccessControl = AccessControl(.open)) {
        self.source = source
        repository = Repository(source: source, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })).running()
        repository.addObserver(fanout)
        dispatcher = DepotMethods.dispatcher(repository: repository, fanout: fanout, access: access)
    }

    func dispatch(_ line: String) -> DispatchOutcome {
        dispatcher.dispatch(IncomingMessage.decode(Array(line.utf8)), context: session)
    }

    /// The line of an outcome answered now.
    func answerNow(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
        guard case .now(let message) = dispatch(line) else {
            Issue.record("expected an answer now", sourceLocation: sourceLocation)
            return nil
        }
        return parseJSON(message.lineBytes().dropLast(), sourceLocation: sourceLocation)
    }

    /// The line of an outcome answered later, once it is in.
    func answerLater(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) async -> JSONValue? {
        guard case .later(let pending) = dispatch(line) else {
            Issue.record("expected an answer later", sourceLocation: sourceLocation)
            return nil
        }
        let bytes: [UInt8]? = await withCheckedContinuation { continuation in
            pending.whenReady { continuation.resume(returning: $0?.lineBytes()) }
        }
        return bytes.flatMap { parseJSON($0.dropLast(), sourceLocation: sourceLocation) }
    }

    /// The line of a read over `count` items: answered now up to `DepotMethods.shapingInlineLimit`, later (off the
    /// event loop) above it; either way the wrong one is an issue.
    func answerRead(_ line: String, over count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> JSONValue? {
        count > DepotMethods.shapingInlineLimit
            ? await answerLater(line, sourceLocation: sourceLocation) : answerNow(line, sourceLocation: sourceLocation)
    }
}

@Suite("Methods through the session seam: no socket, no event loop", .timeLimit(.minutes(1)))
struct MethodTests {
    @Test("state answers at once with the bytes the fan-out encoded, shared, not copied")
    func stateIsAReadAnsweredNow() throws {
        let bench = MethodBench()
        guard case .now(let message) = bench.dispatch(#"{"jsonrpc":"2.0","id":1,"method":"state"}"#) else {
            Issue.record("state is answered now")
            return
        }
        #expect(
            String(decoding: message.lineBytes(), as: UTF8.self) == #"{"jsonrpc":"2.0","id":1,"result":{"seq":0,"epoch":"e1","status":"idle"}}"#
                + "\n")
        #expect(bench.session.notes.isEmpty, "a read is not a mutation")
    }

    @Test("load answers later, once the mutation has run, with the state it published")
    func loadIsAnsweredLater() async throws {
        let bench = MethodBench()
        let answer = await bench.answerLater(#"{"jsonrpc":"2.0","id":"l","method":"load","params":{"strategy":"fastestAvailable"}}"#)
        #expect(answer?["result"]?[StateMember.seq] == 2)
        #expect(answer?["result"]?[StateMember.count] == 3, "the answer counts the items")
        #expect(answer?["result"]?[StateMember.items] == nil, "and does not carry them")
        let withItems = await bench.answerLater(#"{"jsonrpc":"2.0","id":"m","method":"load","params":{"strategy":"fastestAvailable","items":true}}"#)
        #expect(withItems?["result"]?[StateMember.items]?.arrayValue?.count == 3, "unless asked")
        #expect(withItems?["result"]?[StateMember.count] == nil)
        #expect(bench.session.notes == ["load fastestAvailable", "load fastestAvailable"])
    }

    @Test("a refused removal answers changeFailed with the rolled-back state as data")
    func changeFailed() async throws {
        let bench = MethodBench()
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        bench.source.failNextDelete()
        let answer = await bench.answerLater(#"{"jsonrpc":"2.0","id":2,"method":"remove","params":{"id":2,"optimistic":true}}"#)
        #expect(answer?["error"]?["code"] == .number(JSONNumber(DepotErrorCode.changeFailed)))
        #expect(answer?["error"]?["data"]?[StateMember.count] == 3)
        #expect(answer?["error"]?["data"]?[StateMember.items] == nil)
        #expect(bench.session.notes == ["load", "remove 2 (optimistic)"])
        let outcomes = await bench.session.outcomes.wait { $0.count == 2 }
        #expect(outcomes.first == "load: done, seq 2 success")
        #expect(outcomes.last?.hasPrefix("remove 2 (optimistic): failed (changeFailed): ") == true, "\(outcomes)")
    }

    @Test("get reads the current state; notFound names why")
    func get() async throws {
        let bench = MethodBench()
        let before = bench.answerNow(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":"1"}}"#)
        #expect(before?["error"]?["message"] == "no item \"1\": no items are loaded (the state is idle); run load first")
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":2,"method":"load"}"#)
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":3,"method":"get","params":{"id":2}}"#)?["result"] == ["id": 2, "name": "item 2"])
    }

    @Test(
        "state and get through a pipeline: at once up to the inline limit, later (off the event loop) above it, with the same answer",
        arguments: [DepotMethods.shapingInlineLimit, DepotMethods.shapingInlineLimit + 1])
    func shapedReads(count: Int) async throws {
        let bench = MethodBench(source: TestSource(count: count))
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        let state =
            #"{"jsonrpc":"2.0","id":2,"method":"state","params":{"pipeline":[{"op":"sort","by":"/id","order":"desc"},{"op":"limit","count":2}]}}"#
        let newest = #"[{"op":"sort","by":"/id","order":"desc"},{"op":"limit","count":1}]"#
        let get = #"{"jsonrpc":"2.0","id":3,"method":"get","params":{"id":"\#(count)","pipeline":\#(newest)}}"#
        let missing = #"{"jsonrpc":"2.0","id":4,"method":"get","params":{"id":"1","pipeline":\#(newest)}}"#
        let answers = [
            await bench.answerRead(state, over: count), await bench.answerRead(get, over: count), await bench.answerRead(missing, over: count),
        ]
        let ids = answers[0]?["result"]?[StateMember.items]?.arrayValue?.compactMap { $0["id"] }
        #expect(ids == [.number(JSONNumber(count)), .number(JSONNumber(count - 1))], "the two highest ids, from \(count) items")
        #expect(answers[1]?["result"]?["id"] == .number(JSONNumber(count)))
        #expect(answers[2]?["error"]?["message"] == "no item with id \"1\" passes the pipeline")
    }

    @Test(
        "state without a pipeline: a large state's snapshot is encoded off the event loop by its first reader, and read at once after",
        arguments: [DepotMethods.shapingInlineLimit, DepotMethods.shapingInlineLimit + 1])
    func firstSnapshot(count: Int) async throws {
        let bench = MethodBench(source: TestSource(count: count))
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        let state = #"{"jsonrpc":"2.0","id":2,"method":"state"}"#
        let first = await bench.answerRead(state, over: count)
        #expect(first?["result"]?[StateMember.items]?.arrayValue?.count == count)
        #expect(bench.answerNow(state) == first, "encoded once, then answered at once")
    }

    @Test("subscribe and unsubscribe go to the session; its limit is the answer's error")
    func subscriptions() {
        let bench = MethodBench()
        #expect(
            bench.answerNow(#"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#)?["result"] == [
                "subscription": "m1", "epoch": "e1", "seq": 7, "resumed": false,
            ])
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":2,"method":"subscribe"}"#)?["result"]?["subscription"] == "m2")
        let refused = bench.answerNow(#"{"jsonrpc":"2.0","id":3,"method":"subscribe"}"#)
        #expect(refused?["error"]?["code"] == .number(JSONNumber(DepotErrorCode.limitExceeded)))
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":4,"method":"unsubscribe","params":{"subscription":"m1"}}"#)?["result"] == true)
        #expect(bench.answerNow(#"{"jsonrpc":"2.0","id":5,"method":"unsubscribe","params":{"subscription":"m1"}}"#)?["result"] == false)
        #expect(bench.session.subscriptions == ["m2"])
    }

    @Test("withdrawn (the connection closed): the mutation still runs for everyone, keeps no callback, and answers no one")
    func withdrawnAnswer() async throws {
        let bench = MethodBench()
        let gate = bench.source.holdNextFetch()
        guard case .later(let pending) = bench.dispatch(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#) else {
            Issue.record("load is answered later")
            return
        }
        let delivered = Locked(0)
        let withdraw = pending.whenReady { _ in delivered.withLock { $0 += 1 } }
        let source = bench.source
        try await withTimeout { await source.calls.wait { $0.fetchesStarted == 1 } }
        withdraw()
        let recorder = StateRecorder()
        bench.repository.addObserver(recorder)
        gate.open()
        try await withTimeout { await recorder.states.wait { $0.last?.state.status == .success } }
        #expect(delivered.withLock { $0 } == 0)
        #expect(bench.repository.current.seq == 2, "the load ran to its end and published")
    }
}

@Suite("stats through the session seam", .timeLimit(.minutes(1)))
struct StatsMethodTests {
    @Test("stats answers the state, the source's calls, queued mutations by uid and the limits reached, as the wire type decodes it")
    func stats() async throws {
        let bench = MethodBench()
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        bench.source.failNextDelete()
        _ = await bench.answerLater(#"{"jsonrpc":"2.0","id":2,"method":"remove","params":{"id":2}}"#)
        let gate = bench.source.holdNextDelete()
        let held = bench.dispatch(#"{"jsonrpc":"2.0","id":3,"method":"remove","params":{"id":1}}"#)
        let source = bench.source
        try await withTimeout { await source.calls.wait { $0.deletesStarted == 2 } }
        _ = bench.dispatch(#"{"jsonrpc":"2.0","id":4,"method":"remove","params":{"id":3}}"#)
        let answer = try #require(await bench.answerLater(#"{"jsonrpc":"2.0","id":5,"method":"stats"}"#)?["result"])
        let stats = try DepotStatistics(decoding: answer)
        #expect(stats.epoch == bench.repository.epoch && stats.status == "loading" && stats.items == nil)
        #expect(stats.source == "test:memory")
        #expect(stats.fetches.calls == 1 && stats.fetches.failures == 0, "the load (a refused removal rolls back without a fetch)")
        #expect(stats.deletes.calls == 1 && stats.deletes.failures == 1, "the refused removal; the one held has not ended")
        #expect(stats.fetches.p50Microseconds != nil && stats.fetches.maxMicroseconds! >= stats.fetches.p50Microseconds!)
        #expect(stats.users == [DepotStatistics.User(uid: 1000, connections: 0, subscriptions: 0, memoryBytes: 0, queuedMutations: 1)])
        #expect(stats.limitsHit.map(\.limit).contains("maxMemoryPerUser"))
        #expect(stats.limitsHit.allSatisfy { $0.count == 0 })
        gate.open()
        _ = held
    }
}
