/// What a method answers: a result ready now, or one that comes later (a mutation waiting its turn).
public enum RPCReply: Sendable {
    case result(ResultBody)
    case later(PendingResult)
}

/// One method of the server: its name, the param names it accepts, and its handler.
///
/// The handler runs synchronously on the connection's thread with that connection's `Context`, so reads can
/// answer without a task hop and a mutation is submitted in arrival order; work that waits returns `.later`.
public struct RPCMethod<Context>: Sendable {
    public typealias Handler = @Sendable (Params, Context) throws(RPCError) -> RPCReply

    public let name: String
    public let paramNames: [String]
    let handler: Handler

    public init(_ name: String, params paramNames: [String] = [], handler: @escaping Handler) {
        self.name = name
        self.paramNames = paramNames
        self.handler = handler
    }
}
