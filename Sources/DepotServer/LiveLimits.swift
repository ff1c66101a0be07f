import NIOCore
import Synchronization

/// The connection limits in force, which a reload may change while the server runs: every subscription's
/// queue, the replay ring (at the next state), the memory bounds, and every connection's pending-request and
/// subscription limits follow a change at once; the
/// message-size limit applies to connections opened after it (a connection's line decoder keeps its own).
final class LiveLimits: Sendable {
    private let maxMessageBytesValue: Atomic<Int>
    private let subscriberQueueLimitValue: Atomic<Int>
    private let subscriberQueueBytesValue: Atomic<Int>
    private let replayStatesValue: Atomic<Int>
    private let replayBytesValue: Atomic<Int>
    private let maxPendingRequestsValue: Atomic<Int>
    private let maxSubscriptionsValue: Atomic<Int>
    private let maxBatchRequestsValue: Atomic<Int>
    private let maxBatchAnswerBytesValue: Atomic<Int>
    private let maxConnectionsValue: Atomic<Int>
    private let maxConnectionsPerUserValue: Atomic<Int>
    private let partialLineTimeoutNanoseconds: Atomic<Int64>
    private let maxUnreadAnswerBytesValue: Atomic<Int>
    private let maxMemoryPerUserValue: Atomic<Int>
    private let maxUnfinishedLineBytesValue: Atomic<Int>

    init(_ limits: ConnectionLimits) {
        maxMessageBytesValue = Atomic(limits.maxMessageBytes)
        subscriberQueueLimitValue = Atomic(limits.subscriberQueueLimit)
        subscriberQueueBytesValue = Atomic(limits.subscriberQueueBytes)
        replayStatesValue = Atomic(limits.replayStates)
        replayBytesValue = Atomic(limits.replayBytes)
        maxPendingRequestsValue = Atomic(limits.maxPendingRequests)
        maxSubscriptionsValue = Atomic(limits.maxSubscriptions)
        maxBatchRequestsValue = Atomic(limits.maxBatchRequests)
        maxBatchAnswerBytesValue = Atomic(limits.maxBatchAnswerBytes)
        maxConnectionsValue = Atomic(limits.maxConnections)
        maxConnectionsPerUserValue = Atomic(limits.maxConnectionsPerUser)
        partialLineTimeoutNanoseconds = Atomic(TimeAmount(limits.partialLineTimeout).nanoseconds)
        maxUnreadAnswerBytesValue = Atomic(limits.maxUnreadAnswerBytes)
        maxMemoryPerUserValue = Atomic(limits.maxMemoryPerUser)
        maxUnfinishedLineBytesValue = Atomic(limits.maxUnfinishedLineBytes)
    }

    var maxMessageBytes: Int { maxMessageBytesValue.load(ordering: .relaxed) }
    var subscriberQueueLimit: Int { subscriberQueueLimitValue.load(ordering: .relaxed) }
    var subscriberQueueBytes: Int { subscriberQueueBytesValue.load(ordering: .relaxed) }
    var replayStates: Int { replayStatesValue.load(ordering: .relaxed) }
    var replayBytes: Int { replayBytesValue.load(ordering: .relaxed) }
    var maxPendingRequests: Int { maxPendingRequestsValue.load(ordering: .relaxed) }
    var maxSubscriptions: Int { maxSubscriptionsValue.load(ordering: .relaxed) }
    var maxBatchRequests: Int { maxBatchRequestsValue.load(ordering: .relaxed) }
    var maxBatchAnswerBytes: Int { maxBatchAnswerBytesValue.load(ordering: .relaxed) }
    var maxConnections: Int { maxConnectionsValue.load(ordering: .relaxed) }
    var maxConnectionsPerUser: Int { maxConnectionsPerUserValue.load(ordering: .relaxed) }
    var partialLineTimeout: Duration { .nanoseconds(partialLineTimeoutNanoseconds.load(ordering: .relaxed)) }
    var maxUnreadAnswerBytes: Int { maxUnreadAnswerBytesValue.load(ordering: .relaxed) }
    var maxMemoryPerUser: Int { maxMemoryPerUserValue.load(ordering: .relaxed) }
    var maxUnfinishedLineBytes: Int { maxUnfinishedLineBytesValue.load(ordering: .relaxed) }

    var current: ConnectionLimits {
        ConnectionLimits(
            maxMessageBytes: maxMessageBytes,
            subscriberQueueLimit: subscriberQueueLimit,
            subscriberQueueBytes: subscriberQueueBytes,
            replayStates: replayStates,
            replayBytes: replayBytes,
            maxPendingRequests: maxPendingRequests,
            maxSubscriptions: maxSubscriptions,
            maxBatchRequests: maxBatchRequests,
            maxBatchAnswerBytes: maxBatchAnswerBytes,
            maxConnections: maxConnections,
            maxConnectionsPerUser: maxConnectionsPerUser,
            partialLineTimeout: partialLineTimeout,
            maxUnreadAnswerBytes: maxUnreadAnswerBytes,
            maxMemoryPerUser: maxMemoryPerUser,
            maxUnfinishedLineBytes: maxUnfinishedLineBytes
        )
    }

    func update(_ limits: ConnectionLimits) {
        maxMessageBytesValue.store(limits.maxMessageBytes, ordering: .relaxed)
        subscriberQueueLimitValue.store(limits.subscriberQueueLimit, ordering: .relaxed)
        subscriberQueueBytesValue.store(limits.subscriberQueueBytes, ordering: .relaxed)
        replayStatesValue.store(limits.replayStates, ordering: .relaxed)
        replayBytesValue.store(limits.replayBytes, ordering: .relaxed)
        maxPendingRequestsValue.store(limits.maxPendingRequests, ordering: .relaxed)
        maxSubscriptionsValue.store(limits.maxSubscriptions, ordering: .relaxed)
        maxBatchRequestsValue.store(limits.maxBatchRequests, ordering: .relaxed)
        maxBatchAnswerBytesValue.store(limits.maxBatchAnswerBytes, ordering: .relaxed)
        maxConnectionsValue.store(limits.maxConnections, ordering: .relaxed)
        maxConnectionsPerUserValue.store(limits.maxConnectionsPerUser, ordering: .relaxed)
        partialLineTimeoutNanoseconds.store(TimeAmount(limits.partialLineTimeout).nanoseconds, ordering: .relaxed)
        maxUnreadAnswerBytesValue.store(limits.maxUnreadAnswerBytes, ordering: .relaxed)
        maxMemoryPerUserValue.store(limits.maxMemoryPerUser, ordering: .relaxed)
        maxUnfinishedLineBytesValue.store(limits.maxUnfinishedLineBytes, ordering: .relaxed)
    }
}
