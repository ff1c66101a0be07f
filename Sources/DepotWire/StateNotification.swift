import DepotJSON
public import NIOCore

/// The `stateChanged` notification, which carries each published state to a subscription.
///
/// Written in parts so that the encoded state in the middle is shared by every subscriber: a prefix naming
/// the subscription (and how many states it skipped), the state, in delta mode the delta, a suffix:
/// `{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","skipped":3,"state":{…}}}`,
/// `{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{…,"count":9},"delta":{…}}}`
public enum StateNotification {
    /// The notification's method name.
    public static let method = "stateChanged"

    /// The names of its params.
    public enum Param {
        public static let subscription = "subscription"
        /// How many states the subscription missed since its previous notification; absent when none.
        public static let skipped = "skipped"
        /// True on the first notification of a subscription that asked to resume and could not: it starts again
        /// from the current state, in full. Absent otherwise.
        public static let resync = "resync"
        /// True on the first notification after the named pipeline a subscription follows was changed: the state
        /// (the current one, again) through the new pipeline, in full. Absent otherwise.
        public static let pipelineChanged = "pipelineChanged"
        public static let state = "state"
        /// Delta mode: how the state's items follow from the last success state sent (see `DeltaEncoder`).
        public static let delta = "delta"
    }

    /// The prefix for a subscription that skipped no states; worth keeping per subscription.
    public static func prefix(
        subscription: String, skipped: Int = 0, resync: Bool = false, pipelineChanged: Bool = false,
        allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 96 + subscription.utf8.count)
        buffer.writeStaticString("{\"jsonrpc\":\"2.0\",\"method\":\"stateChanged\",\"params\":{\"subscription\":")
        JSONWriter.writeString(subscription, to: &buffer)
        if skipped > 0 {
            buffer.writeStaticString(",\"skipped\":")
            buffer.writeString(String(skipped))
        }
        if resync {
            buffer.writeStaticString(",\"resync\":true")
        }
        if pipelineChanged {
            buffer.writeStaticString(",\"pipelineChanged\":true")
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
