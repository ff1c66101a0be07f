/// One response object: the id it answers and the result or error.
public struct RPCResponse: Sendable {
    public let id: RequestID
    public let outcome: Result<ResultBody, RPCError>

    public init(id: RequestID, outcome: Result<ResultBody, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    /// Writes `{"jsonrpc":"2.0","id":…,"result":…}` or `{"jsonrpc":"2.0","id":…,"error":{…}}`.
    public func encode(into line: inout EncodedMessage) {
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

    /// The response as a line of its own.
    public var line: EncodedMessage {
        var line = EncodedMessage()
        encode(into: &line)
        return line
    }

    /// A batch's responses as one line: an array, in the order given.
    ///
    /// The answers are bounded: the first always goes, then each while the line stays within `limit` bytes; the
    /// others are replaced by the error `limit.leftOut` makes (their calls ran; their answers do not fit).
    public static func batchLine(_ responses: [RPCResponse], limit: BatchAnswerLimit = .unbounded) -> EncodedMessage {
        var line = EncodedMessage()
        line.append(raw: "[")
        for (index, response) in responses.enumerated() {
            if index > 0 { line.append(raw: ",") }
            let encoded = response.line
            if index == 0 || line.byteCount + encoded.byteCount <= limit.bytes {
                line.append(encoded)
            } else {
                RPCResponse(id: response.id, outcome: .failure(limit.leftOut(limit.bytes))).encode(into: &line)
            }
        }
        line.append(raw: "]")
        return line
    }
}

/// How many bytes of answers one batch's line may carry, and the error that stands for an answer left out.
public struct BatchAnswerLimit: Sendable {
    public let bytes: Int
    public let leftOut: @Sendable (_ bytes: Int) -> RPCError
    /// Told of the bytes of answers a batch holds while its slower calls run: more (> 0) as answers are kept, less
    /// (< 0) once the line is written or no longer wanted; so whoever owns the connection can count them.
    public let held: @Sendable (_ change: Int) -> Void

    public init(
        bytes: Int, leftOut: @escaping @Sendable (_ bytes: Int) -> RPCError, held: @escaping @Sendable (_ change: Int) -> Void = { _ in }
    ) {
        self.bytes = bytes
        self.leftOut = leftOut
        self.held = held
    }

    public static let unbounded = BatchAnswerLimit(bytes: .max) { _ in .internalError("unreachable: no batch answer limit") }
}
