import DepotJSON
public import NIOCore

/// The `stateChanged` notification, which carries each published state to a subscription.
///
/// Written in three parts so that the encoded state in the middle is shared by every subscriber: a prefix naming
/// the subscription (and how many states it skipped), the state, a suffix:
/// `{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","skipped":3,"state":{…}}}`
public enum StateNotification {
    /// The notification's method name.
    public static let method = "stateChanged"

    /// The names of its params.
    public enum Param {
        public static let subscription = "subscription"
        /// How many states the subscription missed since its previous notification; absent when none.
        public static let skipped = "skipped"
        public static let state = "state"
    }

    /// The prefix for a subscription that skipped no states; worth keeping per subscription.
    public static func prefix(subscription: String, skipped: Int = 0, allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + subscription.utf8.count)
        buffer.writeStaticString("{\"jsonrpc\":\"2.0\",\"method\":\"stateChanged\",\"params\":{\"subscription\":")
        JSONWriter.writeString(subscription, to: &buffer)
        if skipped > 0 {
            buffer.writeStaticString(",\"skipped\":")
            buffer.writeString(String(skipped))
        }
        buffer.writeStaticString(",\"state\":")
        return buffer
    }

    /// Closes params and the notification, and ends the line.
    public static let suffix: ByteBuffer = {
        var buffer = ByteBufferAllocator().buffer(capacity: 3)
        buffer.writeStaticString("}}\n")
        return buffer
    }()
}
