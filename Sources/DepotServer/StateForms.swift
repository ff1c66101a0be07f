import NIOCore

/// The wire forms of one state that a subscription may send, whichever holds them: a current `StateFrame` has
/// every one (encoding it when first asked), a `ReplayRing.Entry` those it kept. `Subscription` chooses among
/// them in one place for both.
protocol StateForms {
    var seq: Int { get }
    var isSuccess: Bool { get }
    /// The seq of the success state its delta applies to; nil without a delta.
    var deltaBase: Int? { get }
    /// The State as `state` answers it; nil when not kept.
    var snapshotForm: ByteBuffer? { get }
    /// A success State with `count` and its items; nil when not kept (or not a success).
    var countedItemsForm: ByteBuffer? { get }
    /// A success State with `count`, and its delta; nil without a delta.
    var stateWithDelta: (state: ByteBuffer, delta: ByteBuffer)? { get }
}

extension StateFrame: StateForms {
    var deltaBase: Int? { delta?.base }
    var snapshotForm: ByteBuffer? { snapshot }
    var countedItemsForm: ByteBuffer? { countedItems }
}

extension ReplayRing.Entry: StateForms {
    var snapshotForm: ByteBuffer? { snapshot }
    var countedItemsForm: ByteBuffer? { countedItems }
}
