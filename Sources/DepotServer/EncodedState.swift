import DepotCore
import NIOCore

/// A published state with its wire form, encoded once and shared by every response and notification.
struct EncodedState: Sendable {
    let published: PublishedState
    let bytes: ByteBuffer

    var seq: Int { published.seq }

    init(_ published: PublishedState, bytes: ByteBuffer) {
        self.published = published
        self.bytes = bytes
    }
}
