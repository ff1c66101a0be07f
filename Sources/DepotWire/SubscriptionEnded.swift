public import DepotJSON
public import NIOCore

/// The `subscriptionEnded` notification: the daemon ended a subscription, and says why (the named pipeline it
/// followed was deleted). No notification of it follows; the connection stays open.
/// `{"jsonrpc":"2.0","method":"subscriptionEnded","params":{"subscription":"s1","reason":"…"}}`
public struct SubscriptionEnded: Sendable, Equatable {
    public static let method = "subscriptionEnded"

    public var subscription: String
    public var reason: String

    public init(subscription: String, reason: String) {
        self.subscription = subscription
        self.reason = reason
    }

    public enum Param {
        public static let subscription = "subscription"
        public static let reason = "reason"
    }

    /// The notification, one line with its newline.
    public func line(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + subscription.utf8.count + reason.utf8.count)
        buffer.writeStaticString("{\"jsonrpc\":\"2.0\",\"method\":\"subscriptionEnded\",\"params\":{\"subscription\":")
        JSONWriter.writeString(subscription, to: &buffer)
        buffer.writeStaticString(",\"reason\":")
        JSONWriter.writeString(reason, to: &buffer)
        buffer.writeStaticString("}}\n")
        return buffer
    }

    /// Its params; throws when they are not what the protocol describes.
    public init(decoding params: JSONValue) throws(WireDecodingError) {
        guard case .object(let object) = params else {
            throw WireDecodingError("subscriptionEnded's params must be an object, not \(params.typeName)")
        }
        let members = Members(object: object, of: "subscriptionEnded")
        subscription = try members.string(Param.subscription)
        reason = try members.string(Param.reason)
    }
}
