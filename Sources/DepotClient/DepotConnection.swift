import DepotJSON
import DepotWire
import NIOCore
import NIOPosix
import Synchronization

/// A connection to depotd that makes JSON-RPC calls and receives subscriptions' states.
/// Calls may overlap; each waits for its own answer.
public final class DepotConnection: Sendable {
    private struct PendingCall {
        let continuation: CheckedContinuation<Result<JSONValue, DepotClientError>, Never>
        /// For a `subscribe` call: where the subscription's states go once the daemon names it.
        let subscription: AsyncStream<StateChange>.Continuation?
    }

    private struct Routes {
        var nextID = 1
        var pending: [Int: PendingCall] = [:]
        var subscriptions: [String: AsyncStream<StateChange>.Continuation] = [:]
        var isClosed = false
    }

    public let lines: LineConnection
    private let routes = Mutex(Routes())

    private init(lines: LineConnection) {
        self.lines = lines
    }

    /// Connects to depotd's socket at `path`; `tap`, when given, sees every message sent and received.
    public static func connect(
        to path: String,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tap: (any ConnectionTap)? = nil
    ) async throws(DepotClientError) -> DepotConnection {
        let lines = try await LineConnection.connect(to: path, eventLoopGroup: eventLoopGroup, tap: tap)
        let connection = DepotConnection(lines: lines)
        Task { await connection.readAnswers() }
        return connection
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

    /// Subscribes; the returned sequence yields the current state first, then every later one.
    public func subscribe() async throws(DepotClientError) -> DepotSubscription {
        let (changes, continuation) = AsyncStream<StateChange>.makeStream()
        let result = try await call(SubscribeRequest.method, params: nil, subscription: continuation).get()
        return DepotSubscription(id: try Self.decode(result, as: SubscribeRequest.self), changes: changes)
    }

    /// Ends a subscription, and its sequence; false when the daemon did not know it.
    public func unsubscribe(_ id: String) async throws(DepotClientError) -> Bool {
        let ended = try await call(UnsubscribeRequest(subscription: id))
        routes.withLock { $0.subscriptions.removeValue(forKey: id) }?.finish()
        return ended
    }

    /// `result` decoded as `Request`'s answer.
    public static func decode<Request: DepotRequest>(_ result: JSONValue, as _: Request.Type) throws(DepotClientError) -> Request.Result {
        do {
            return try Request.decodeResult(result)
        } catch {
            throw .invalidResponse("\(Request.method) answered something the protocol does not allow: \(error)")
        }
    }

    public func close() async {
        await lines.close()
    }

    // MARK: Internals

    private func call(
        _ method: String,
        params: JSONObject?,
        subscription: AsyncStream<StateChange>.Continuation?
    ) async -> Result<JSONValue, DepotClientError> {
        await withCheckedContinuation { continuation in
            let id: Int? = routes.withLock { routes in
                guard !routes.isClosed else { return nil }
                let id = routes.nextID
                routes.nextID += 1
                routes.pending[id] = PendingCall(continuation: continuation, subscription: subscription)
                return id
            }
            guard let id else {
                continuation.resume(returning: .failure(.connectionClosed))
                return
            }
            var request: JSONObject = ["jsonrpc": "2.0", "id": .number(JSONNumber(id)), "method": .string(method)]
            if let params {
                request["params"] = .object(params)
            }
            let line = JSONValue.object(request).jsonText
            Task {
                do {
                    try await lines.send(line)
                } catch {
                    resolve(id: id, with: .failure(.connectionClosed))
                }
            }
        }
    }

    private func readAnswers() async {
        do {
            for try await line in lines.lines {
                route(line)
            }
        } catch {}
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
            call.continuation.resume(returning: .failure(.connectionClosed))
        }
        for subscription in subscriptions {
            subscription.finish()
        }
    }

    private func route(_ line: [UInt8]) {
        guard let message = try? JSONParser.parse(line), case .object(let object) = message else { return }
        if object["method"]?.stringValue == StateNotification.method {
            deliver(object["params"])
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

    private func resolve(id: Int, with result: Result<JSONValue, DepotClientError>) {
        guard let call = routes.withLock({ routes -> PendingCall? in
            guard let call = routes.pending.removeValue(forKey: id) else { return nil }
            // Route the subscription before its answer is handed over: its first state may be the next line.
            if let subscription = call.subscription {
                if case .success(let value) = result, let name = value["subscription"]?.stringValue {
                    routes.subscriptions[name] = subscription
                } else {
                    subscription.finish()
                }
            }
            return call
        }) else { return }
        call.continuation.resume(returning: result)
    }

    private func deliver(_ params: JSONValue?) {
        typealias Param = StateNotification.Param
        guard let params, let name = params[Param.subscription]?.stringValue, let state = params[Param.state] else { return }
        let change = StateChange(subscription: name, skipped: params[Param.skipped]?.numberValue?.intValue ?? 0, state: state)
        let subscription = routes.withLock { $0.subscriptions[name] }
        subscription?.yield(change)
    }
}
