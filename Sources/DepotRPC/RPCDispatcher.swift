import DepotJSON

/// What the connection should do with one incoming line.
public enum DispatchOutcome: Sendable {
    /// Nothing to write: the line held only notifications.
    case nothing
    /// The response line, ready now.
    case now(EncodedMessage)
    /// The response line once the pending results are in (see `PendingLine`).
    case later(PendingLine)
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

    /// `limit` bounds a batch's answers (see `RPCResponse.batchLine`).
    public func dispatch(_ message: IncomingMessage, context: Context, limit: BatchAnswerLimit = .unbounded) -> DispatchOutcome {
        switch message {
        case .unanswerable(let error), .batchTooLarge(let error):
            return .now(RPCResponse(id: .null, outcome: .failure(error)).line)
        case .single(let element):
            switch answer(element, context: context) {
            case .ready(nil):
                return .nothing
            case .ready(let response?):
                return .now(response.line)
            case let pending:
                return .later(PendingLine(elements: [pending], isBatch: false))
            }
        case .batch(let elements):
            let answers = elements.map { answer($0, context: context) }
            guard answers.contains(where: { if case .pending = $0 { true } else { false } }) else {
                let responses = answers.compactMap { if case .ready(let response) = $0 { response } else { nil } }
                return responses.isEmpty ? .nothing : .now(RPCResponse.batchLine(responses, limit: limit))
            }
            return .later(PendingLine(elements: answers, isBatch: true, limit: limit))
        }
    }

    /// Runs one element's method: its response now (nil for a notification), or its pending result.
    private func answer(_ element: Result<RPCRequest, InvalidRequest>, context: Context) -> PendingLine.Element {
        let request: RPCRequest
        switch element {
        case .failure(let invalid):
            return .ready(RPCResponse(id: invalid.id, outcome: .failure(invalid.error)))
        case .success(let valid):
            request = valid
        }
        func respond(_ outcome: Result<ResultBody, RPCError>) -> PendingLine.Element {
            .ready(request.id.map { RPCResponse(id: $0, outcome: outcome) })
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
        case .later(let result):
            return .pending(request.id, result)
        }
    }
}
