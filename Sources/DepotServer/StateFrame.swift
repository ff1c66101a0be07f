import DepotCore
import DepotPlatform
import DepotWire
import NIOCore

/// One published state and every wire form subscribers may need of it, each encoded at most once, when first
/// needed, and shared by all who send it: the snapshot (`state`, `get`'s neighbours, snapshot-mode subscriptions,
/// resyncs), and for delta mode the state with `count` and either its `delta` or its items.
///
/// The delta is from the previous success state the repository published, computed once when the state is
/// published. A removal from a large collection is thus sent as one id to every delta-mode subscriber, and the
/// collection is encoded in full only if someone needs it.
final class StateFrame: Sendable {
    let published: PublishedState
    let epoch: String
    /// The delta from the previous success state, with that state's seq and the id field; nil when there is
    /// none (not a success, no earlier success, the items were reordered or the id field changed) or when the
    /// full list is no larger.
    let delta: (base: Int, delta: ItemDelta, idField: String)?
    /// The seq of the last success state published before this one: what a client that holds this state has
    /// as items when it is not a success itself.
    let precedingSuccess: Int?
    /// The shared pipeline whose output this is (`SharedPipeline.number`); 0 for the repository's own states.
    let pipelineNumber: Int
    /// The shared pipeline's generation: one higher after each change of the named pipeline it runs.
    let generation: Int

    private struct Encodings {
        var snapshot: ByteBuffer?
        var countedItems: ByteBuffer?
        var countOnly: ByteBuffer?
        var delta: ByteBuffer?
    }

    private let encodings = Locked(Encodings())
    private let onEncode: @Sendable () -> Void

    /// - Parameter onEncode: called whenever a form that holds the items is encoded (for counting encodings).
    init(
        _ published: PublishedState, epoch: String, delta: (base: Int, delta: ItemDelta, idField: String)? = nil,
        precedingSuccess: Int? = nil, pipelineNumber: Int = 0, generation: Int = 0, onEncode: @escaping @Sendable () -> Void = {}
    ) {
        self.pipelineNumber = pipelineNumber
        self.generation = generation
        self.published = published
        self.epoch = epoch
        self.delta = delta
        self.precedingSuccess = precedingSuccess
        self.onEncode = onEncode
    }

    var seq: Int { published.seq }

    var isSuccess: Bool { published.state.status == .success }

    /// The bytes of a success state's items (0 for other states): about the size of its full forms.
    var itemBytes: Int {
        published.state.items.map { $0.jsonByteCount + $0.count } ?? 0
    }

    /// The last success state a client holds once it has this one: this one, or the one before it.
    var heldSuccess: Int? { isSuccess ? seq : precedingSuccess }

    /// The State as `state` answers it.
    var snapshot: ByteBuffer {
        encoded(\.snapshot, form: .snapshot)
    }

    /// Whether the snapshot is encoded already: reading it then costs nothing.
    var isSnapshotEncoded: Bool {
        encodings.withLock { $0.snapshot != nil }
    }

    /// The State a delta-mode subscription is sent without a delta: with `count` and the items, when a success.
    var countedItems: ByteBuffer {
        isSuccess ? encoded(\.countedItems, form: .countedItems) : snapshot
    }

    /// The State and its delta, for a delta-mode subscription whose last success is `delta.base`; nil without a delta.
    var stateWithDelta: (state: ByteBuffer, delta: ByteBuffer)? {
        guard let delta else { return nil }
        return encodings.withLock { encodings in
            if encodings.countOnly == nil {
                encodings.countOnly = StateEncoder.encode(published, epoch: epoch, form: .countOnly)
                encodings.delta = DeltaEncoder.encode(delta.delta, base: delta.base, idField: delta.idField)
            }
            guard let state = encodings.countOnly, let bytes = encodings.delta else { return nil }
            return (state, bytes)
        }
    }

    private func encoded(_ form: WritableKeyPath<Encodings, ByteBuffer?>, form kind: StateEncoder.Form) -> ByteBuffer {
        encodings.withLock { encodings in
            if let bytes = encodings[keyPath: form] { return bytes }
            onEncode()
            let bytes = StateEncoder.encode(published, epoch: epoch, form: kind)
            encodings[keyPath: form] = bytes
            return bytes
        }
    }
}
