import DepotJSON

/// One line from a client, classified: a single request, a batch, or an error answered with `"id": null`.
public enum IncomingMessage: Sendable {
    case single(Result<RPCRequest, InvalidRequest>)
    /// A non-empty array; each element validated on its own.
    case batch([Result<RPCRequest, InvalidRequest>])
    /// The line is not JSON, or is an empty array: one error response with a null id.
    case unanswerable(RPCError)

    /// Parses and classifies one line (without its newline).
    public static func decode(_ line: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.defaultMaxDepth) -> IncomingMessage {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, maxDepth: maxDepth)
        } catch {
            return .unanswerable(.parseError(error.description))
        }
        return classify(value)
    }

    public static func decode(_ line: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> IncomingMessage {
        line.withUnsafeBytes { decode($0, maxDepth: maxDepth) }
    }

    public static func classify(_ value: JSONValue) -> IncomingMessage {
        guard case .array(let elements) = value else {
            return .single(RPCRequest.validate(value))
        }
        guard !elements.isEmpty else {
            return .unanswerable(.invalidRequest("an empty batch has nothing to do"))
        }
        return .batch(elements.map(RPCRequest.validate))
    }
}
