public import DepotJSON

/// One line from a client, classified: a single request, a batch, or an error answered with `"id": null`.
public enum IncomingMessage: Sendable {
    case single(Result<RPCRequest, InvalidRequest>)
    /// A non-empty array; each element validated on its own.
    case batch([Result<RPCRequest, InvalidRequest>])
    /// The line is not JSON, or is an empty array: one error response with a null id.
    case unanswerable(RPCError)
    /// A batch of more requests than the limit: refused whole, with this error and a null id.
    case batchTooLarge(RPCError)

    /// The most requests one batch may hold when no other limit is given.
    public static let defaultMaxBatchRequests = 256

    /// Parses and classifies one line (without its newline). A batch of more than `maxBatchRequests` is refused
    /// whole, before any of it runs.
    public static func decode(
        _ line: UnsafeRawBufferPointer,
        maxDepth: Int = JSONParser.defaultMaxDepth,
        maxBatchRequests: Int = defaultMaxBatchRequests
    ) -> IncomingMessage {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, maxDepth: maxDepth)
        } catch {
            return .unanswerable(.parseError(error.description))
        }
        return classify(value, maxBatchRequests: maxBatchRequests)
    }

    /// `decode`, except that a line of nothing but whitespace (an empty line, a stray CR) is no message: nil.
    public static func decodeUnlessBlank(
        _ line: UnsafeRawBufferPointer, maxBatchRequests: Int = defaultMaxBatchRequests
    ) -> IncomingMessage? {
        guard line.contains(where: { !isWhitespace($0) }) else { return nil }
        return decode(line, maxBatchRequests: maxBatchRequests)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
    }

    public static func decode(
        _ line: [UInt8],
        maxDepth: Int = JSONParser.defaultMaxDepth,
        maxBatchRequests: Int = defaultMaxBatchRequests
    ) -> IncomingMessage {
        line.withUnsafeBytes { decode($0, maxDepth: maxDepth, maxBatchRequests: maxBatchRequests) }
    }

    public static func classify(_ value: JSONValue, maxBatchRequests: Int = defaultMaxBatchRequests) -> IncomingMessage {
        guard case .array(let elements) = value else {
            return .single(RPCRequest.validate(value))
        }
        guard !elements.isEmpty else {
            return .unanswerable(.invalidRequest("an empty batch has nothing to do"))
        }
        guard elements.count <= maxBatchRequests else {
            return .batchTooLarge(
                .invalidRequest(
                    "a batch of \(elements.count) requests is more than this server's limit of \(maxBatchRequests); none of it was run: send at most \(maxBatchRequests) at a time"
                ))
        }
        return .batch(elements.map(RPCRequest.validate))
    }
}
