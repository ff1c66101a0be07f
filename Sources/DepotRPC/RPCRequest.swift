public import DepotJSON

/// A well-formed JSON-RPC 2.0 request or notification.
public struct RPCRequest: Sendable {
    public let method: String
    /// The params as sent; nil when the member was absent. Always an object or an array when present.
    public let params: JSONValue?
    /// The id; nil for a notification, which is executed but never answered.
    public let id: RequestID?

    public init(method: String, params: JSONValue?, id: RequestID?) {
        self.method = method
        self.params = params
        self.id = id
    }

    public var isNotification: Bool { id == nil }

    /// Validates one element of a message against JSON-RPC 2.0's Request object.
    /// The error carries the id when one could be read, and nil (answered with `"id": null`) otherwise.
    public static func validate(_ value: JSONValue) -> Result<RPCRequest, InvalidRequest> {
        guard case .object(let object) = value else {
            return .failure(InvalidRequest(id: .null, error: .invalidRequest("expected a request object, found \(value.typeName)")))
        }
        var id: RequestID?
        if let idValue = object["id"] {
            guard let validID = RequestID(idValue) else {
                return .failure(
                    InvalidRequest(id: .null, error: .invalidRequest("\"id\" must be a string, a number or null, not \(idValue.typeName)")))
            }
            id = validID
        }
        let answerID = id ?? .null
        guard object["jsonrpc"] == .string("2.0") else {
            let found = object["jsonrpc"].map { "\($0.jsonText)" } ?? "nothing"
            return .failure(InvalidRequest(id: answerID, error: .invalidRequest("\"jsonrpc\" must be \"2.0\", found \(found)")))
        }
        guard let methodValue = object["method"] else {
            return .failure(InvalidRequest(id: answerID, error: .invalidRequest("\"method\" is missing")))
        }
        guard case .string(let method) = methodValue else {
            return .failure(InvalidRequest(id: answerID, error: .invalidRequest("\"method\" must be a string, not \(methodValue.typeName)")))
        }
        let params = object["params"]
        switch params {
        case nil, .object?, .array?:
            break
        case .some(let other):
            return .failure(InvalidRequest(id: answerID, error: .invalidRequest("\"params\" must be an object or an array, not \(other.typeName)")))
        }
        return .success(RPCRequest(method: method, params: params, id: id))
    }
}

/// A message element that is not a valid request: answered with `error` and `id`, even when it had no id.
public struct InvalidRequest: Error, Sendable {
    public let id: RequestID
    public let error: RPCError
}
