/// Who asked for a mutation: a user and one of its connections. The repository takes mutations in a fair turn
/// between users, and between the connections of a user, each connection's in the order it sent them; when a
/// connection goes, what it queued and did not start is dropped.
public struct Requester: Hashable, Sendable, CustomStringConvertible {
    /// The user's id (a uid); nil for the daemon's own work (the start-up load, a reload, a scripted source).
    public let user: UInt32?
    /// Tells apart the connections of one user; unique for the daemon's life.
    public let connection: UInt64

    public init(user: UInt32?, connection: UInt64) {
        self.user = user
        self.connection = connection
    }

    /// The daemon's own work: one turn of its own, apart from every client's.
    public static let daemon = Requester(user: nil, connection: 0)

    public var description: String {
        user.map { "connection \(connection) of uid \($0)" } ?? "depotd"
    }
}
