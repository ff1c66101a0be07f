import DepotCore
import DepotPlatform
import DepotWire
import NIOCore
import NIOPosix

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

    struct Encodings {
        var snapshot: ByteBuffer?
        var countedItems: ByteBuffer?
        var countOnly: ByteBuffer?
        var delta: ByteBuffer?
        /// Called once the encoding under way on the CPU pool is done; nil when none is.
        var waitingForEncoding: [@Sendable () -> Void]?
    }

    private let encodings = Locked(Encodings())
    private let observer: (any EncodingObserver)?
    /// Where large forms are encoded, off the loops (`.callersThread` for a frame tested alone).
    private let pool: CPUPool

    /// - Parameter observer: told whenever a form that holds the items is encoded, and before an encoding on the
    ///   CPU pool starts; nil (depotd) for nobody.
    init(
        _ published: PublishedState, epoch: String, delta: (base: Int, delta: ItemDelta, idField: String)? = nil,
        precedingSuccess: Int? = nil, pipelineNumber: Int = 0, generation: Int = 0, observer: (any EncodingObserver)? = nil,
        pool: CPUPool = .callersThread
    ) {
        self.pipelineNumber = pipelineNumber
        self.generation = generation
        self.published = published
        self.epoch = epoch
        self.delta = delta
        self.precedingSuccess = precedingSuccess
        self.observer = observer
        self.pool = pool
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
        encoded(.snapshot)
    }

    /// Whether the snapshot is encoded already: reading it then costs nothing.
    var isSnapshotEncoded: Bool {
        encodings.withLock { $0.snapshot != nil }
    }

    /// The State a delta-mode subscription is sent without a delta: with `count` and the items, when a success.
    var countedItems: ByteBuffer {
        isSuccess ? encoded(.countedItems) : snapshot
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

    /// Items a success may hold for its full forms to be encoded on the thread that first asks for them; a larger
    /// one is encoded on the CPU pool before an event loop hands it to a subscription that needs it in full.
    static let inlineEncodingLimit = DepotMethods.shapingInlineLimit

    /// A form that holds a success's items.
    enum FullForm: Hashable, Sendable {
        /// The State as `state` answers it (`snapshot`).
        case snapshot
        /// The State with `count` and the items (`countedItems`).
        case countedItems

        var keyPath: WritableKeyPath<Encodings, ByteBuffer?> {
            switch self {
            case .snapshot: \.snapshot
            case .countedItems: \.countedItems
            }
        }

        var encoderForm: StateEncoder.Form {
            switch self {
            case .snapshot: .snapshot
            case .countedItems: .countedItems
            }
        }
    }

    /// Whether handing out `form` now would encode it on the calling thread: this is a success of more than
    /// `inlineEncodingLimit` items, and that form of it is not encoded yet.
    func wouldEncode(_ form: FullForm) -> Bool {
        guard isSuccess, (published.state.items?.count ?? 0) > Self.inlineEncodingLimit else { return false }
        return encodings.withLock { $0[keyPath: form.keyPath] == nil }
    }

    /// Encodes `forms` on the server's CPU pool (those not encoded yet), then calls `ready` there. One encoding at a
    /// time: a caller that asks while one is under way waits for it, and asks again if it needed another form. The
    /// encoding runs outside the lock, which event loops take.
    func encode(_ forms: Set<FullForm>, then ready: @escaping @Sendable () -> Void) {
        let isFirst = encodings.withLock { encodings in
            defer { encodings.waitingForEncoding = (encodings.waitingForEncoding ?? []) + [ready] }
            return encodings.waitingForEncoding == nil
        }
        guard isFirst else { return }
        let work: @Sendable () -> Void = {
            self.observer?.startingOffLoop()
            for form in forms where self.wouldEncode(form) {
                let bytes = StateEncoder.encode(self.published, epoch: self.epoch, form: form.encoderForm)
                self.encodings.withLock { encodings in
                    guard encodings[keyPath: form.keyPath] == nil else { return }
                    self.observer?.encoded(items: self.published.state.items?.count ?? 0)
                    encodings[keyPath: form.keyPath] = bytes
                }
            }
            let waiting = self.encodings.withLock { encodings in
                defer { encodings.waitingForEncoding = nil }
                return encodings.waitingForEncoding ?? []
            }
            for ready in waiting { ready() }
        }
        pool.run(work)
    }

    /// `form`, encoded under the lock by the first caller that needs it (a small state's, or one no loop waits on).
    private func encoded(_ form: FullForm) -> ByteBuffer {
        encodings.withLock { encodings in
            if let bytes = encodings[keyPath: form.keyPath] { return bytes }
            observer?.encoded(items: published.state.items?.count ?? 0)
            let bytes = StateEncoder.encode(published, epoch: epoch, form: form.encoderForm)
            encodings[keyPath: form.keyPath] = bytes
            return bytes
        }
    }
}
