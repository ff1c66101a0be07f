public import DepotJSON
import DepotPlatform
public import DepotWire
public import NIOCore
public import NIOPosix

/// A connection to depotd that makes JSON-RPC calls and receives subscriptions' states.
/// Calls may overlap; each waits for its own answer.
///
/// No task runs behind it: answers and notifications are routed by the connection's channel handler as they
/// arrive, and each call waits on a promise its answer completes.
public final class DepotConnection: Sendable {
    private let transport: LineConnection
    private let router: AnswerRouter

    private init(transport: LineConnection, router: AnswerRouter) {
        self.transport = transport
        self.router = router
    }

    /// Connects to depotd's socket at `path`; `tap`, when given, sees every message sent and received.
    public static func connect(
        to path: String,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tap: (any ConnectionTap)? = nil
    ) async throws(DepotClientError) -> DepotConnection {
        let router = AnswerRouter()
        let sink = LineConnection.Sink.receiver(line: { router.route($0) }, closed: { router.close() })
        let transport = try await LineConnection.connect(to: path, eventLoopGroup: eventLoopGroup, tap: tap, sink: sink)
        return DepotConnection(transport: transport, router: router)
    }

    /// Calls `method` with `params` by name and returns its result as sent; throws `.remote` for an error answer.
    public func call(_ method: String, params: JSONObject? = nil) async throws(DepotClientError) -> JSONValue {
        try await call(method, params: params, subscription: nil).get()
    }

    /// Calls the method `request` describes and decodes its answer; throws `.remote` for an error answer and
    /// `.invalidResponse` for an answer that is not what the protocol says.
    public func call<Request: DepotRequest>(_ request: Request) async throws(DepotClientError) -> Request.Result {
        try Self.decode(try await call(Request.method, params: request.params), as: Request.self)
    }

    /// Subscribes as `request` says (by default: snapshot mode, from the current state); the returned sequence
    /// yields the first state, then every later one, and heartbeats when the request asked for them.
    public func subscribe(_ request: SubscribeRequest = SubscribeRequest()) async throws(DepotClientError) -> DepotSubscription {
        let (changes, continuation) = AsyncStream<StateChange>.makeStream()
        let result = try await call(SubscribeRequest.method, params: request.params, subscription: continuation).get()
        let subscribed = try Self.decode(result, as: SubscribeRequest.self)
        return DepotSubscription(id: subscribed.subscription, subscribed: subscribed, changes: changes)
    }

    /// Ends a subscription, and its sequence; false when the daemon did not know it.
    public func unsubscribe(_ id: String) async throws(DepotClientError) -> Bool {
        let ended = try await call(UnsubscribeRequest(subscription: id))
        router.endSubscription(id)
        return ended
    }

    public func close() async {
        await transport.close()
    }

    /// `result` decoded as `Request`'s answer.
    public static func decode<Request: DepotRequest>(_ result: JSONValue, as _: Request.Type) throws(DepotClientError) -> Request.Result {
        do {
            return try Request.decodeResult(result)
        } catch {
            throw .invalidResponse("\(Request.method) answered something the protocol does not allow: \(error)")
        }
    }

    private func call(
        _ method: String,
        params: JSONObject?,
        subscription: AsyncStream<StateChange>.Continuation?
    ) async -> Result<JSONValue, DepotClientError> {
        let answer = transport.eventLoop.makePromise(of: Result<JSONValue, DepotClientError>.self)
        guard let id = router.expect(answer, subscription: subscription) else {
            subscription?.finish()
            answer.succeed(.failure(.connectionClosed))
            return .failure(.connectionClosed)
        }
        var request: JSONObject = ["jsonrpc": "2.0", "id": .number(JSONNumber(id)), "method": .string(method)]
        if let params {
            request["params"] = .object(params)
        }
        do {
            try await transport.send(JSONValue.object(request).jsonText)
        } catch {
            router.resolve(id: id, with: .failure(.connectionClosed))
        }
        // The router completes every promise it was given: with the answer, or when the connection closes.
        return (try? await answer.futureResult.get()) ?? .failure(.connectionClosed)
    }
}

/// Matches each line depotd sends to what waits for it: an answer to its call's promise, a notification to its
/// subscription's stream. Called on the connection's event loop as lines arrive.
private final class AnswerRouter: Sendable {
    private struct PendingCall {
        let answer: EventLoopPromise<Result<JSONValue, DepotClientError>>
        /// For a `subscribe` call: where the subscription's states go once the daemon names it.
        let subscription: AsyncStream<StateChange>.Continuation?
    }

    private struct Routes {
        var nextID = 1
        var pending: [Int: PendingCall] = [:]
        var subscriptions: [String: AsyncStream<StateChange>.Continuation] = [:]
        var isClosed = false
    }

    private let routes = Locked(Routes())

    /// Registers a call's promise; nil when the connection is closed.
    func expect(_ answer: EventLoopPromise<Result<JSONValue, DepotClientError>>, subscription: AsyncStream<StateChange>.Continuation?) -> Int? {
        routes.withLock { routes in
            guard !routes.isClosed else { return nil }
            let id = routes.nextID
            routes.nextID += 1
            routes.pending[id] = PendingCall(answer: answer, subscription: subscription)
            return id
        }
    }

    func endSubscription(_ id: String) {
        routes.withLock { $0.subscriptions.removeValue(forKey: id) }?.finish()
    }

    func route(_ line: [UInt8]) {
        guard let message = try? JSONParser.parse(line), case .object(let object) = message else { return }
        if let change = StateChange(notification: message) {
            // subscriptionEnded is the last of its subscription: its stream ends after it.
            let stream = routes.withLock { routes in
                change.ended == nil ? routes.subscriptions[change.subscription] : routes.subscriptions.removeValue(forKey: change.subscription)
            }
            stream?.yield(change)
            if change.ended != nil { stream?.finish() }
            return
        }
        guard let id = object["id"]?.numberValue?.intValue else { return }
        if let error = object["error"] {
            let remote = RemoteError(
                code: error["code"]?.numberValue?.intValue ?? 0,
                message: error["message"]?.stringValue ?? error.jsonText,
                data: error["data"]
            )
            resolve(id: id, with: .failure(.remote(remote)))
        } else if let result = object["result"] {
            resolve(id: id, with: .success(result))
        } else {
            resolve(id: id, with: .failure(.invalidResponse(message.jsonText)))
        }
    }

    func resolve(id: Int, with result: Result<JSONValue, DepotClientError>) {
        guard
            let call = routes.withLock({ routes -> PendingCall? in
                guard let call = routes.pending.removeValue(forKey: id) else { return nil }
                // Route the subscription before its answer is handed over: its first state may be the next line.
                if let subscription = call.subscription {
                    if case .success(let value) = result, let name = value[Subscribed.Member.subscription]?.stringValue {
                        routes.subscriptions[name] = subscription
                    } else {
                        subscription.finish()
                    }
                }
                return call
            })
        else { return }
        call.answer.succeed(result)
    }

    /// The connection closed: every call still waiting fails, every subscription ends.
    func close() {
        let (pending, subscriptions) = routes.withLock { routes in
            routes.isClosed = true
            defer {
                routes.pending = [:]
                routes.subscriptions = [:]
            }
            return (Array(routes.pending.values), Array(routes.subscriptions.values))
        }
        for call in pending {
            call.subscription?.finish()
            call.answer.succeed(.failure(.connectionClosed))
        }
        for subscription in subscriptions {
            subscription.finish()
        }
    }

}
