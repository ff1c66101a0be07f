import DepotJSON
import DepotPlatform
import DepotRPC
import DepotSchema
import DepotTestSupport
import DepotWire
import Testing

@Suite("Request types: each is the method rpc-schema/openrpc.json describes")
struct RequestTypeTests {
    static let document = ProtocolLedger.document

    @Test("the request types are exactly the methods the document lists for clients to call")
    func sameMethods() {
        #expect(DepotRequests.all.map { $0.method }.sorted() == Self.document.calledMethodNames.sorted())
    }

    @Test("each type accepts the params the document lists, by the same names", arguments: DepotRequests.all.map(RequestCase.init))
    func sameParams(request: RequestCase) throws {
        let method = try #require(Self.document.method(named: request.type.method))
        #expect(request.type.paramNames == method.params.map(\.name))
    }

    @Test("each example's params decode and encode back, and its result decodes", arguments: DepotRequests.all.map(RequestCase.init))
    func examplesRoundTrip(request: RequestCase) throws {
        let method = try #require(Self.document.method(named: request.type.method))
        for example in method.examples {
            try request.checkExample(example.params, result: example.result)
        }
    }

    @Test("params a type encodes are valid against the document")
    func encodedParamsAreValid() throws {
        let requests: [any DepotRequest] = [
            StateRequest(), GetRequest(id: "25"), LoadRequest(), LoadRequest(strategy: .fastestAvailable),
            RemoveRequest(id: "a/b"), RemoveRequest(id: "1", optimistic: true), WipeRequest(),
            SubscribeRequest(), UnsubscribeRequest(subscription: "s1"), DiscoverRequest(),
        ]
        for request in requests {
            let method = try #require(Self.document.method(named: type(of: request).method))
            let violations = method.validateParams(request.params ?? JSONObject())
            #expect(violations.isEmpty, "\(type(of: request).method): \(violations)")
        }
    }

    @Test("a wrong param is refused with -32602 naming it, before any handler runs")
    func wrongParams() {
        let called = Locked(false)
        let dispatcher = RPCDispatcher<Int>(methods: [
            .handling(RemoveRequest.self) { _, _ throws(RPCError) in
                called.withLock { $0 = true }
                return .result(.value(true))
            }
        ])
        guard
            case .now(let line) = dispatcher.dispatch(
                IncomingMessage.decode(Array(#"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":"1","optimistic":"yes"}}"#.utf8)),
                context: 0
            )
        else {
            Issue.record("answered at once")
            return
        }
        expectLine(
            line.lineBytes(),
            is: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: \"optimistic\" must be true or false, found \"yes\""}}"#)
        #expect(!called.withLock { $0 })
    }
}

/// One request type, with what the tests do with it.
struct RequestCase: Sendable, CustomTestStringConvertible {
    let type: any DepotRequest.Type

    var testDescription: String { type.method }

    /// Dispatches the example's params to a method made from the type, checks that the decoded request encodes
    /// the same params back, and decodes the example's result.
    func checkExample(_ params: JSONObject, result: JSONValue?) throws {
        try type.checkExample(params: params, result: result)
    }
}

extension DepotRequest {
    fileprivate static func checkExample(params: JSONObject, result: JSONValue?) throws {
        let decoded = Locked<Self?>(nil)
        let dispatcher = RPCDispatcher<Int>(methods: [
            .handling(Self.self) { request, _ throws(RPCError) in
                decoded.withLock { $0 = request }
                return .result(.value(.null))
            }
        ])
        let message = JSONValue.object(["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": .object(params)])
        _ = dispatcher.dispatch(IncomingMessage.classify(message), context: 0)
        let request = try #require(decoded.withLock { $0 }, "\(method) decodes the example's params \(JSONValue.object(params).jsonText)")
        #expect((request.params ?? JSONObject()) == params, "\(method) encodes the params it decoded")
        if let result {
            _ = try decodeResult(result)
        }
    }
}
