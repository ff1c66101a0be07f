import DepotPlatform

/// The answer line to a message whose requests include some answered later: ready once every pending result of
/// the message is in. A batch is answered in its requests' order, whatever order their results came in.
public struct PendingLine: Sendable {
    /// One element of the message: answered now, pending, or a notification (never answered).
    enum Element: Sendable {
        case ready(RPCResponse?)
        case pending(RequestID?, PendingResult)
    }

    private let elements: [Element]
    private let isBatch: Bool
    private let limit: BatchAnswerLimit

    init(elements: [Element], isBatch: Bool, limit: BatchAnswerLimit = .unbounded) {
        self.elements = elements
        self.isBatch = isBatch
        self.limit = limit
    }

    /// How many of the message's calls are still to be answered: one for a single call, up to the batch's size.
    public var pendingCount: Int {
        elements.count { if case .pending = $0 { true } else { false } }
    }

    /// Calls `body` once with the line — nil when the message held only notifications — when every pending
    /// result is in; on the thread that delivers the last one.
    @discardableResult
    public func whenReady(_ body: @escaping @Sendable (EncodedMessage?) -> Void) -> Withdrawal {
        let collector = Collector(elements: elements, isBatch: isBatch, limit: limit, body: body)
        let withdrawals = elements.enumerated().compactMap { index, element -> Withdrawal? in
            guard case .pending(let id, let result) = element else { return nil }
            return result.whenDone { outcome in
                collector.fill(index, with: id.map { RPCResponse(id: $0, outcome: outcome) })
            }
        }
        return Withdrawal {
            for withdrawal in withdrawals { withdrawal() }
            collector.abandon()
        }
    }

    /// Gathers the pending elements' responses; the last one in encodes the line. A batch's answers wait for each
    /// other, so they are held to the batch's bound as they come: one that would carry what is kept past it is
    /// replaced by the bound's error at once (the batch's first answer is always kept), and a batch of slow calls
    /// never holds more than its bound of answers.
    private final class Collector: Sendable {
        private struct Slots {
            var responses: [RPCResponse?]
            var remaining: Int
            /// Bytes of the answers kept so far.
            var keptBytes = 0
            /// Bytes reported to the limit's `held` and not yet taken back.
            var reportedBytes = 0
            /// The line is no longer wanted: a result that was already on its way is dropped.
            var abandoned = false
        }

        /// The element whose answer is the first of the line: always kept.
        private let firstAnswer: Int?

        private let slots: Locked<Slots>
        private let isBatch: Bool
        private let limit: BatchAnswerLimit
        private let body: @Sendable (EncodedMessage?) -> Void

        init(elements: [Element], isBatch: Bool, limit: BatchAnswerLimit, body: @escaping @Sendable (EncodedMessage?) -> Void) {
            self.limit = limit
            var responses: [RPCResponse?] = []
            var remaining = 0
            for element in elements {
                switch element {
                case .ready(let response):
                    responses.append(response)
                case .pending:
                    responses.append(nil)
                    remaining += 1
                }
            }
            self.firstAnswer = elements.firstIndex { element in
                switch element {
                case .ready(let response): response != nil
                case .pending(let id, _): id != nil
                }
            }
            let keptBytes = responses.reduce(0) { $0 + ($1?.line.byteCount ?? 0) }
            // The answers ready now wait for the pending ones.
            let held = isBatch && remaining > 0 ? keptBytes : 0
            self.slots = Locked(Slots(responses: responses, remaining: remaining, keptBytes: keptBytes, reportedBytes: held))
            self.isBatch = isBatch
            self.body = body
            if held > 0 {
                slots.withLock { _ in limit.held(held) }
            }
        }

        func fill(_ index: Int, with response: RPCResponse?) {
            let encodedSize = isBatch ? response?.line.byteCount ?? 0 : 0
            var heldChange = 0
            let complete: [RPCResponse]? = slots.withLock { slots in
                guard !slots.abandoned else { return nil }
                if let response, index != firstAnswer, slots.keptBytes + encodedSize > limit.bytes {
                    slots.responses[index] = RPCResponse(id: response.id, outcome: .failure(limit.leftOut(limit.bytes)))
                } else {
                    slots.keptBytes += encodedSize
                    slots.responses[index] = response
                    // A batch's answer waits for the others: held until the line is written.
                    if slots.remaining > 1 {
                        heldChange = encodedSize
                    }
                }
                if slots.remaining == 1 {
                    heldChange -= slots.reportedBytes
                }
                slots.reportedBytes += heldChange
                // Reported under the lock, so that what is taken back never overtakes what was reported.
                if heldChange != 0 {
                    limit.held(heldChange)
                }
                slots.remaining -= 1
                return slots.remaining == 0 ? slots.responses.compactMap { $0 } : nil
            }
            guard let complete else { return }
            if complete.isEmpty {
                body(nil)
            } else {
                body(isBatch ? RPCResponse.batchLine(complete, limit: limit) : complete[0].line)
            }
        }

        /// The line is no longer wanted (its connection closed): the answers kept are let go, and taken back from
        /// what was reported held.
        func abandon() {
            slots.withLock { slots in
                if slots.reportedBytes != 0 {
                    limit.held(-slots.reportedBytes)
                }
                slots.reportedBytes = 0
                slots.responses = []
                slots.abandoned = true
            }
        }
    }
}
