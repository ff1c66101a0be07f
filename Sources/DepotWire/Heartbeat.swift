public import DepotJSON
public import NIOCore

/// The `heartbeat` notification a subscription asked for with `heartbeat: seconds`: sent after that many seconds
/// without a notification, it names the subscription, the daemon run and the seq of the last state the
/// subscription was sent — where a client resumes from — so a quiet daemon is told from a dead connection:
/// `{"jsonrpc":"2.0","method":"heartbeat","params":{"subscription":"s1","epoch":"…","seq":12}}`
public struct Heartbeat: Sendable, Equatable {
    public static let method = "heartbeat"

    public var subscription: String
    public var epoch: String
    public var seq: Int

    public init(subscription: String, epoch: String, seq: Int) {
        self.subscription = subscription
        self.epoch = epoch
        self.seq = seq
    }

    public enum Param {
        public static let subscription = "subscription"
        public static let epoch = "epoch"
        public static let seq = "seq"
    }

    /// The notification, one line with its newline.
    public func line(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + subscription.utf8.count + epoch.utf8.count)
        buffer.writeStaticString("{\"jsonrpc\":\"2.0\",\"method\":\"heartbeat\",\"params\":{\"subscription\":")
        JSONWriter.writeString(subscription, to: &buffer)
        buffer.writeStaticString(",\"epoch\":")
        JSONWriter.writeString(epoch, to: &buffer)
        buffer.writeStaticString(",\"seq\":")
        buffer.writeString(String(seq))
        buffer.writeStaticString("}}\n")
        return buffer
    }

    /// A heartbeat's params; throws when they are not what the protocol describes.
    public init(decoding params: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = params else {
            throw WireDecodingError("a heartbeat's params must be an object, not \(params.typeName)")
        }
        let members = Members(object: object, of: "the heartbeat")
        subscription = try members.string(Param.subscription)
        epoch = try members.string(Param.epoch)
        seq = try members.nonNegativeInteger(Param.seq)
    }
}
