public import DepotCore
public import NIOCore

/// A published state with its wire form, encoded once and shared by every response and notification.
public struct EncodedState: Sendable {
    public let published: PublishedState
    /// The State as compact JSON, without a newline.
    public let bytes: ByteBuffer

    public var seq: Int { published.seq }

    public init(_ published: PublishedState, bytes: ByteBuffer) {
        self.published = published
        self.bytes = bytes
    }

    /// Encodes `published`, of the run `epoch` (see `StateEncoder`).
    public init(encoding published: PublishedState, epoch: String, allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.init(published, bytes: StateEncoder.encode(published, epoch: epoch, allocator: allocator))
    }
}
