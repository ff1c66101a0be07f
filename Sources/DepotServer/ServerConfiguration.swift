/// How the server listens and what it allows each connection.
public struct ServerConfiguration: Sendable {
    public static let defaultSocketMode: UInt32 = 0o660

    /// Where the Unix socket is bound (with `inheritedSocket`, where systemd bound it; used in messages).
    public var socketPath: String
    /// A listening socket systemd passed (socket activation). When set, the server serves it instead of
    /// binding, and leaves the socket file's mode and removal to systemd.
    public var inheritedSocket: Int32?
    /// The socket file's permissions; 0660 lets the owner and the group connect.
    public var socketMode: UInt32
    public var limits: ConnectionLimits
    /// How long shutdown waits for in-flight requests before it closes connections anyway.
    public var shutdownTimeout: Duration
    /// Told of every encoding of a state (`EncodingObserver`); nil, as depotd runs, for nobody, at no cost.
    public var encodingObserver: (any EncodingObserver)?

    public init(
        socketPath: String,
        inheritedSocket: Int32? = nil,
        socketMode: UInt32 = ServerConfiguration.defaultSocketMode,
        limits: ConnectionLimits = ConnectionLimits(),
        shutdownTimeout: Duration = .seconds(5),
        encodingObserver: (any EncodingObserver)? = nil
    ) {
        self.socketPath = socketPath
        self.inheritedSocket = inheritedSocket
        self.socketMode = socketMode
        self.limits = limits
        self.shutdownTimeout = shutdownTimeout
        self.encodingObserver = encodingObserver
    }
}
