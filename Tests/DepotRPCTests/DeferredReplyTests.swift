import DepotJSON
import DepotTestSupport
import DepotRPC
import Testing

@Suite("Deferred replies: answered once the work is done, in request order")
struct DeferredReplyTests {
    /// `now` answers at once; `later` records its call when dispatched and its finish when awaited;
    /// `failLater` finishes with an error carrying data.
    static let dispatcher = TestDispatcher(methods: [
        TestMethod("now") { _, _ in .value("now") },
        TestMethod("later", params: ["tag"]) { params, journal throws(RPCError) in
            let tag = try params.string("tag")
            journal.record("call \(tag)")
            return .deferred {
                journal.record("finish \(tag)")
                return .success(.value(.string("later \(tag)")))
            }
        },
        TestMethod("failLater") { _, _ in
            .deferred {
                .failure(RPCError(code: -32001, message: "load failed", data: .value(["state": "failed", "attempt": 2])))
            }
        },
    ])

    @Test func deferredCallIsAnsweredLater() async {
        let journal = Journal()
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1}"#, to: Self.dispatcher, context: journal)

        #expect(journal.recorded == ["call a"], "the handler runs when dispatched; the deferred work only when awaited")
        let line = await outcome.laterLine()
        expectLine(line ?? nil, is: #"{"jsonrpc":"2.0","id":1,"result":"later a"}"#)
        #expect(journal.recorded == ["call a", "finish a"])
    }

    @Test func deferredFailureIsAnsweredWithItsData() async {
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"failLater","id":"f"}"#, to: Self.dispatcher)
        let line = await outcome.laterLine()
        expectLine(
            line ?? nil,
            is: #"{"jsonrpc":"2.0","id":"f","error":{"code":-32001,"message":"load failed","data":{"state":"failed","attempt":2}}}"#
        )
    }

    @Test func deferredNotificationIsAwaitedButWritesNoLine() async {
        let journal = Journal()
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"later","params":{"tag":"n"}}"#, to: Self.dispatcher, context: journal)

        let line = await outcome.laterLine()
        #expect(line == .some(nil), "a notification is never answered")
        #expect(journal.recorded == ["call n", "finish n"])
    }

    @Test func deferredFailingNotificationWritesNoLine() async {
        let outcome = dispatch(#"{"jsonrpc":"2.0","method":"failLater"}"#, to: Self.dispatcher)
        let line = await outcome.laterLine()
        #expect(line == .some(nil))
    }

    @Test func batchMixingReadyAndDeferredKeepsRequestOrder() async {
        let journal = Journal()
        let outcome = dispatch(
            #"""
            [{"jsonrpc":"2.0","method":"later","params":{"tag":"a"},"id":1},\#
            {"jsonrpc":"2.0","method":"now","id":2},\#
            {"jsonrpc":"2.0","method":"later","params":{"tag":"quiet"}},\#
            {"jsonrpc":"2.0","method":"failLater","id":3},\#
            {"jsonrpc":"2.0","method":"missing","id":4},\#
            {"jsonrpc":"2.0","method":"later","params":{"tag":"b"},"id":5},\#
            {"jsonrpc":"2.0","method":"now","id":6}]
            """#,
            to: Self.dispatcher, context: journal
        )

        #expect(journal.recorded == ["call a", "call quiet", "call b"], "every handler runs at dispatch, in request order")
        let line = await outcome.laterLine()
        expectLine(line ?? nil, is: #"""
            [{"jsonrpc":"2.0","id":1,"result":"later a"},\#
            {"jsonrpc":"2.0","id":2,"result":"now"},\#
            {"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"load failed","data":{"state":"failed","attempt":2}}},\#
            {"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: \"missing\"; this server has failLater, later, now"}},\#
            {"jsonrpc":"2.0","id":5,"result":"later b"},\#
            {"jsonrpc":"2.0","id":6,"result":"now"}]
            """#)
        #expect(journal.recorded == ["call a", "call quiet", "call b", "finish a", "finish quiet", "finish b"])
    }

    @Test func batchOfNotificationsWithDeferredWorkWritesNoLine() async {
        let journal = Journal()
        let outcome = dispatch(
            #"[{"jsonrpc":"2.0","method":"now"},{"jsonrpc":"2.0","method":"later","params":{"tag":"x"}}]"#,
            to: Self.dispatcher, context: journal
        )
        let line = await outcome.laterLine()
        #expect(line == .some(nil))
        #expect(journal.recorded == ["call x", "finish x"])
    }

    @Test func batchWithoutDeferredWorkIsAnsweredNow() {
        let line = dispatch(#"[{"jsonrpc":"2.0","method":"now","id":1},{"jsonrpc":"2.0","method":"now","id":2}]"#, to: Self.dispatcher)
            .immediateLine()
        expectLine(line, is: #"[{"jsonrpc":"2.0","id":1,"result":"now"},{"jsonrpc":"2.0","id":2,"result":"now"}]"#)
    }

    @Test func handlerErrorBeforeDeferringIsAnsweredNow() {
        let line = dispatch(#"{"jsonrpc":"2.0","method":"later","params":{},"id":1}"#, to: Self.dispatcher).immediateLine()
        expectLine(line, is: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: later needs \"tag\""}}"#)
    }
}
