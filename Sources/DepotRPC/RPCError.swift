import DepotJSON

/// A JSON-RPC error object: code, message, and optional data. A struct wrapping the code rather than an
/// enum, so that codes can be added without breaking callers.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let data: ResultBody?

    public init(code: Int, message: String, data: ResultBody? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (\(code))" }

    // The codes JSON-RPC 2.0 defines.
    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603

    /// The text was not valid JSON.
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: parseErrorCode, message: "Parse error: \(detail)")
    }

    /// The JSON was not a valid request object.
    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: invalidRequestCode, message: "Invalid Request: \(detail)")
    }

    public static func methodNotFound(_ method: String, known: [String]) -> RPCError {
        let offer = known.isEmpty ? "" : "; this server has \(known.joined(separator: ", "))"
        return RPCError(code: methodNotFoundCode, message: "Method not found: \"\(method)\"\(offer)")
    }

    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: "Invalid params: \(detail)")
    }

    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: internalErrorCode, message: "Internal error: \(detail)")
    }
}
