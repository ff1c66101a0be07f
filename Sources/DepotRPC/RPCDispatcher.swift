import DepotJSON
import NIOCore

/// What the connection should do with one incoming line.
public enum DispatchOutcome: Sendable {
    /// Nothing to write: the line held only notifications.
    case nothing
    /// The response line, ready now.
    case now(EncodedMessage)
    /// The response line once deferred work has finished; nil when it held only notifications.
    case later(@Sendable () async -> EncodedMessage?)
}

/// Routes JSON-RPC 2.0 messages to methods and builds the answers, following the spec to the letter:
/// notifications are executed and never answered, batches are answered with one array (or not at all when
/// they held only notifications), invalid elements get their own error objects, and ids are echoed exactly.
/// Batch elements are dispatched in order, so mutations in a batch are submitted in the order given.
public struct RPCDispatcher<Context>: Sendable {
    private let methods: [String: RPCMethod<Context>]
    /// The method names, sorted; for error messages and for checking the server against its schema.
    public let methodNames: [String]

    public init(methods: [RPCMethod<Context>]) {
        // A name registered twice keeps its last registration.
        self.methods = Dictionary(methods.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.methodNames = self.methods.keys.sorted()
    }

    public func dispatch(_ message: IncomingMessage, context: Context) -> DispatchOutcome {
        switch message {
        case .unanswerable(let error):
            var line = EncodedMessage()
            Self.encodeResponse(id: .null, outcome: .failure(error), into: &line)
            return .now(line)
        case .single(let element):
            let answer = answer(element, context: context)
            switch answer {
            case .ready(nil):
                return .nothing
            case .ready(let (id, outcome)?):
                var line = EncodedMessage()
                Self.encodeResponse(id: id, outcome: outcome, into: &line)
                return .now(line)
            case .pending(let wait):
                return .later {
                    guard let (id, outcome) = await wait() else { return nil }
                    var line = EncodedMessage()
                    Self.encodeResponse(id: id, outcome: outcome, into: &line)
                    return line
                }
            }
        case .batch(let elements):
            let answers = elements.map { answer($0, context: context) }
            if answers.allSatisfy({ if case .ready = $0 { true } else { false } }) {
                let responses = answers.compactMap { if case .ready(let response) = $0 { response } else { nil } }
                return responses.isEmpty ? .nothing : .now(Self.encodeBatch(responses))
            }
            return .later {
                var responses: [(RequestID, Result<ResultBody, RPCError>)] = []
                for answer in answers {
                    switch answer {
                    case .ready(let response):
                        if let response { responses.append(response) }
                    case .pending(let wait):
                        if let response = await wait() { responses.append(response) }
                    }
                }
                return responses.isEmpty ? nil : Self.encodeBatch(responses)
            }
        }
    }

    // MARK: One element

    private typealias Response = (RequestID, Result<ResultBody, RPCError>)

    private enum Answer {
        /// nil when the element was a notification.
        case ready(Response?)
        case pending(@Sendable () async -> Response?)
    }

    private func answer(_ element: Result<RPCRequest, InvalidRequest>, context: Context) -> Answer {
        let request: RPCRequest
        switch element {
        case .failure(let invalid):
            return .ready((invalid.id, .failure(invalid.error)))
        case .success(let valid):
            request = valid
        }
        let id = request.id
        func respond(_ outcome: Result<ResultBody, RPCError>) -> Answer {
            .ready(id.map { ($0, outcome) })
        }
        guard let method = methods[request.method] else {
            return respond(.failure(.methodNotFound(request.method, known: methodNames)))
        }
        let reply: RPCReply
        do {
            let params = try Params(method: method.name, params: request.params, accepted: method.paramNames)
            reply = try method.handler(params, context)
        } catch {
            return respond(.failure(error))
        }
        switch reply {
        case .result(let body):
            return respond(.success(body))
        case .deferred(let work):
            return .pending {
                let outcome = await work()
                return id.map { ($0, outcome) }
            }
        }
    }

    // MARK: Encoding

    /// Writes `{"jsonrpc":"2.0","id":…,"result":…}` or `{"jsonrpc":"2.0","id":…,"error":{…}}`.
    public static func encodeResponse(id: RequestID, outcome: Result<ResultBody, RPCError>, into line: inout EncodedMessage) {
        line.append(raw: "{\"jsonrpc\":\"2.0\",\"id\":")
        line.append(json: id.jsonValue)
        switch outcome {
        case .success(let body):
            line.append(raw: ",\"result\":")
            line.append(body: body)
        case .failure(let error):
            line.append(raw: ",\"error\":{\"code\":")
            line.append(integer: error.code)
            line.append(raw: ",\"message\":")
            line.append(string: error.message)
            if let data = error.data {
                line.append(raw: ",\"data\":")
                line.append(body: data)
            }
            line.append(raw: "}")
        }
        line.append(raw: "}")
    }

    private static func encodeBatch(_ responses: [Response]) -> EncodedMessage {
        var line = EncodedMessage()
        line.append(raw: "[")
        for (index, (id, outcome)) in responses.enumerated() {
            if index > 0 { line.append(raw: ",") }
            encodeResponse(id: id, outcome: outcome, into: &line)
        }
        line.append(raw: "]")
        return line
    }
}
