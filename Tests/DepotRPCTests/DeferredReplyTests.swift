import DepotJSON
import DepotRPC
import DepotTestSupport
import Testing

@Suite("Pending results: answered once they are in, in request order, and withdrawable")
struct DeferredReplyTests {
    /// `now` answers at once; `later` records its call and leaves its result to the test (by tag).
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("now") { _, _ in .value("now") },
        TestMethod("later", params: ["tag"]) { params, journal throws(RPCError) in
            let tag = try params.string("tag")
            journal.record("call \(tag)")
            return .later(journal.result(tag).pending)
        },
    ])

    static let loadFailed = RPCError(code: -32001, message: "load failed", data: .value(["state": "failed", "attempt": 2]))

    @Test func pendingCallIsAnsweredWhenItsResultComes() {
        let journal = Journal()
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1}"#, to: Self.dispatcher, context: journal)
        #expect(journal.recorded == ["call a"], "the handler runs when dispatched")

        let receiver = LineReceiver()
        receiver.receive(outcome.pendingLine())
        #expect(receiver.deliveries.isEmpty, "nothing is written before the result is in")
        journal.result("a").complete(.success(.value("later a")))
        #expect(receiver.deliveries.count == 1)
        expectLine(receiver.deliveries.first ?? nil, is: #"{"jsonrpc":"2.0","id":1,"result":"later a"}"#)
    }

    @Test func pendingFailureIsAnsweredWithItsData() {
        let journal = Journal()
        let receiver = LineReceiver()
        receiver.receive(
            dispatch(#"{"jsonrpc":"2.0","method":"later","params":{"tag":"f"},"id":"f"}"#, to: Self.dispatcher, context: journal).pendingLine())
        journal.result("f").complete(.failure(Self.loadFailed))
        expectLine(
            receiver.deliveries.first ?? nil,
            is: #"{"jsonrpc":"2.0","id":"f","error":{"code":-32001,"message":"load failed","data":{"state":"failed","attempt":2}}}"#
        )
    }

    @Test func pendingNotificationIsWaitedForButWritesNoLine() {
        let journal = Journal()
        let receiver = LineReceiver()
        receiver.receive(dispatch(#"{"jsonrpc":"2.0","method":"later","params":{"tag":"n"}}"#, to: Self.dispatcher, context: journal).pendingLine())
        #expect(receiver.deliveries.isEmpty)
        journal.result("n").complete(.failure(Self.loadFailed))
        #expect(receiver.deliveries.count == 1)
        #expect(receiver.deliveries.first == .some(nil), "a notification is never answered, even when it fails")
    }

    @Test("a batch is answered in its requests' order, whatever order its results come in")
    func batchKeepsRequestOrder() {
        let journal = Journal()
        let outcome = dispatch(
            #"""
            [{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1},\#
            {"jsonrpc":"2.0","method":"now","id":2},\#
            {"jsonrpc":"2.0","method":"later","params":{"tag":"quiet"}},\#
            {"jsonrpc":"2.0","method":"later","params":{"tag":"f"},"id":3},\#
            {"jsonrpc":"2.0","method":"missing","id":4},\#
            {"jsonrpc":"2.0","method":"later","params":{"tag":"b"},"id":5},\#
            {"jsonrpc":"2.0","method":"now","id":6}]
            """#,
            to: Self.dispatcher, context: journal
        )
        #expect(journal.recorded == ["call a", "call quiet", "call f", "call b"], "every handler runs at dispatch, in request order")
        let receiver = LineReceiver()
        receiver.receive(outcome.pendingLine())
        journal.result("b").complete(.success(.value("later b")))
        journal.result("f").complete(.failure(Self.loadFailed))
        journal.result("quiet").complete(.success(.value("unheard")))
        #expect(receiver.deliveries.isEmpty, "the line waits for its last result")
        journal.result("a").complete(.success(.value("later a")))
        #expect(receiver.deliveries.count == 1)
        expectLine(
            receiver.deliveries.first ?? nil,
            is: #"""
                [{"jsonrpc":"2.0","id":1,"result":"later a"},\#
                {"jsonrpc":"2.0","id":2,"result":"now"},\#
                {"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"load failed","data":{"state":"failed","attempt":2}}},\#
                {"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: \"missing\"; this server has later, now"}},\#
                {"jsonrpc":"2.0","id":5,"result":"later b"},\#
                {"jsonrpc":"2.0","id":6,"result":"now"}]
                """#)
    }

    @Test func batchOfNotificationsWithPendingWorkWritesNoLine() {
        let journal = Journal()
        let receiver = LineReceiver()
        receiver.receive(
            dispatch(
                #"[{"jsonrpc":"2.0","method":"now"},{"jsonrpc":"2.0","method":"later","params":{"tag":"x"}}]"#,
                to: Self.dispatcher, context: journal
            ).pendingLine())
        journal.result("x").complete(.success(.value("x")))
        #expect(receiver.deliveries.count == 1)
        #expect(receiver.deliveries.first == .some(nil))
        #expect(journal.recorded == ["call x"])
    }

    @Test func batchWithoutPendingResultsIsAnsweredNow() {
        let line = dispatch(#"[{"jsonrpc":"2.0","method":"now","id":1},{"jsonrpc":"2.0","method":"now","id":2}]"#, to: Self.dispatcher)
            .immediateLine()
        expectLine(line, is: #"[{"jsonrpc":"2.0","id":1,"result":"now"},{"jsonrpc":"2.0","id":2,"result":"now"}]"#)
    }

    @Test func handlerErrorBeforeDeferringIsAnsweredNow() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"later","params":{},"id":1}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: later needs \"tag\""}}"#)
    }

    @Test("withdrawing a pending line withdraws every result it waits for, and nothing is delivered after")
    func withdrawal() {
        let journal = Journal()
        let receiver = LineReceiver()
        let withdraw = receiver.receive(
            dispatch(
                #"[{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1},{"jsonrpc":"2.0","method":"later","params":{"tag":"b"},"id":2}]"#,
                to: Self.dispatcher, context: journal
            ).pendingLine())
        journal.result("a").complete(.success(.value("a")))
        withdraw()
        #expect(journal.result("a").withdrawals == 1)
        #expect(journal.result("b").withdrawals == 1, "the result not yet in is told it is not wanted")
        journal.result("b").complete(.success(.value("b")))
        #expect(receiver.deliveries.isEmpty)
    }

    @Test("a result already in when the line registers is delivered at once")
    func resultAlreadyIn() {
        let ready = TestDispatcher(methods: [
            TestMethod("ready") { _, _ in
                .later(
                    PendingResult { completion in
                        completion(.success(.value("done")))
                        return .none
                    })
            }
        ])
        let receiver = LineReceiver()
        receiver.receive(dispatch(#"{"jsonrpc":"2.0","method":"ready","id":7}"#, to: ready).pendingLine())
        expectLine(receiver.deliveries.first ?? nil, is: #"{"jsonrpc":"2.0","id":7,"result":"done"}"#)
    }
}

@Suite("A batch waiting for its slower calls holds its answers to the bound, and says what it holds")
struct HeldBatchAnswerTests {
    static let big = String(repeating: "x", count: 3000)

    /// A dispatcher whose `later` calls complete when the test says, with a result of `size` bytes.
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("later", params: ["tag"]) { params, journal throws(RPCError) in
            .later(journal.result(try params.string("tag")).pending)
        }
    ])

    @Test(
        "an answer that would carry what is kept past the bound is cut as it comes; held bytes go up as answers are kept, and back to zero when the line is written"
    )
    func heldToTheBound() throws {
        let journal = Journal()
        let held = Condition(0)
        let changes = Condition<[Int]>([])
        let limit = BatchAnswerLimit(
            bytes: 8000, leftOut: { _ in .init(code: -32004, message: "left out") },
            held: { change in
                held.update { $0 += change }
                changes.update { $0.append(change) }
            })
        let batch = (1...4).map { #"{"jsonrpc":"2.0","method":"later","params":{"tag":"\#($0)"},"id":\#($0)}"# }
        let outcome = Self.dispatcher.dispatch(
            IncomingMessage.decode(Array(("[" + batch.joined(separator: ",") + "]").utf8)), context: journal, limit: limit)
        let receiver = LineReceiver()
        receiver.receive(outcome.pendingLine())
        // The last call's answer comes first, then the second's and third's: the third would pass 8000 bytes.
        journal.result("4").complete(.success(.value(.string(Self.big))))
        journal.result("2").complete(.success(.value(.string(Self.big))))
        #expect(held.value > 6000 && held.value < 8000, "two answers held: \(held.value)")
        journal.result("3").complete(.success(.value(.string(Self.big))))
        #expect(held.value < 8000, "the third is cut as it comes, not kept: \(held.value)")
        #expect(receiver.deliveries.isEmpty)
        // The first answer always goes, whatever its size.
        journal.result("1").complete(.success(.value(.string(Self.big + Self.big))))
        #expect(held.value == 0, "all taken back once the line is written")
        let line = try #require(receiver.deliveries.first ?? nil)
        let answers = try JSONParser.parse(Array(line.dropLast())).arrayValue ?? []
        let codes: [JSONValue?] = answers.map { $0["error"]?["code"] }
        // In the line's order the first answer (6 KB) leaves no room for the others under 8000 bytes.
        let leftOut = JSONValue.number(JSONNumber(-32004))
        #expect(codes == [nil, leftOut, leftOut, leftOut])
    }

    @Test("a batch no longer wanted lets its answers go and takes back what it reported held")
    func abandoned() {
        let journal = Journal()
        let held = Condition(0)
        let limit = BatchAnswerLimit(
            bytes: 1 << 20, leftOut: { _ in .init(code: -32004, message: "left out") }, held: { change in held.update { $0 += change } })
        let outcome = Self.dispatcher.dispatch(
            IncomingMessage.decode(
                Array(
                    #"[{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1},{"jsonrpc":"2.0","method":"later","params":{"tag":"b"},"id":2}]"#
                        .utf8)),
            context: journal, limit: limit)
        let receiver = LineReceiver()
        let withdrawal = receiver.receive(outcome.pendingLine())
        journal.result("a").complete(.success(.value(.string(Self.big))))
        #expect(held.value > 3000)
        withdrawal()
        #expect(held.value == 0)
        journal.result("b").complete(.success(.value("late")))
        #expect(receiver.deliveries.isEmpty, "nothing is written for a line no longer wanted")
    }
}
