public import DepotJSON
public import DepotRPC

/// One of Depot's methods, as a type: its name, the params it takes (by name) and what it answers.
///
/// The server reads a call's params with `init(params:)` (the dispatcher has already refused names not in
/// `paramNames`); a client sends `params` and reads the answer with `decodeResult`. rpc-schema/openrpc.json
/// describes the same method, and the tests hold the two together.
public protocol DepotRequest: Sendable {
    /// The answer, decoded.
    associatedtype Result: Sendable

    /// The method's name on the wire.
    static var method: String { get }
    /// The params it accepts, by name.
    static var paramNames: [String] { get }
    /// The access a caller needs for it (rpc-schema's `x-access`).
    static var accessLevel: AccessLevel { get }

    /// Reads a call's params; an error names the param and what was wrong (-32602).
    init(params: Params) throws(RPCError)

    /// The params to send; nil when the call has none.
    var params: JSONObject? { get }

    /// Decodes a result; throws when it is not what the document says the method answers.
    static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Result
}

extension DepotRequest {
    public static var paramNames: [String] { [] }
    public static var accessLevel: AccessLevel { .read }
    public var params: JSONObject? { nil }
}

/// A method that answers a State: `state`, `load`, `remove`, `wipe`.
public protocol StateAnsweringRequest: DepotRequest where Result == WireState {}

extension StateAnsweringRequest {
    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> WireState {
        try WireState(decoding: value)
    }
}

extension RPCMethod {
    /// The method `Request` describes: its name and params from the type, and `handler` called with the params
    /// decoded. Adding a method to the server is this call plus the request type.
    public static func handling<Request: DepotRequest>(
        _: Request.Type,
        _ handler: @escaping @Sendable (Request, Context) throws(RPCError) -> RPCReply
    ) -> RPCMethod {
        RPCMethod(Request.method, params: Request.paramNames) { params, context throws(RPCError) in
            try handler(try Request(params: params), context)
        }
    }
}
