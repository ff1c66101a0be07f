import Synchronization

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
        }
    }

    /// Gathers the pending elements' responses; the last one in encodes the line.
    private final class Collector: Sendable {
        private struct Slots {
            var responses: [RPCResponse?]
            var remaining: Int
        }

        private let slots: Mutex<Slots>
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
            self.slots = Mutex(Slots(responses: responses, remaining: remaining))
            self.isBatch = isBatch
            self.body = body
        }

        func fill(_ index: Int, with response: RPCResponse?) {
            let complete: [RPCResponse]? = slots.withLock { slots in
                slots.responses[index] = response
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
    }
}
