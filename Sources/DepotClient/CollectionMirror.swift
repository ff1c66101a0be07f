public import DepotJSON
import DepotOperators
public import DepotWire

/// A local copy of the repository kept from a subscription's notifications, in either mode: what a client holds
/// after applying everything it received. After each state it equals that state (its status, and for a success
/// its items), and it names the point to resume from.
public struct CollectionMirror: Sendable {
    /// The last state applied, as sent (in delta mode, a success without its items).
    public private(set) var state: WireState?
    /// The items of the last success state applied, in order.
    public private(set) var items: [JSONValue] = []
    /// The seq of that success state: the base the next delta must name.
    public private(set) var successSeq: Int?

    public init() {}

    /// Where to resume from: the run and the seq of the last state applied.
    public var resumePoint: ResumePoint? {
        state.map { ResumePoint(epoch: $0.epoch, seq: $0.seq) }
    }

    /// Why a notification cannot be applied: the mirror no longer matches the daemon, and must subscribe again
    /// without `since`.
    public struct Mismatch: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Applies one notification; throws when it does not fit what the mirror holds (a delta for another base,
    /// a `count` that does not match, a seq that goes back).
    public mutating func apply(_ change: StateChange) throws(Mismatch) {
        guard change.heartbeat == nil, change.ended == nil else { return }
        let decoded: WireState
        let delta: WireDelta?
        do {
            decoded = try change.decodedState()
            delta = try change.decodedDelta()
        } catch {
            throw Mismatch(description: "the notification is not what the protocol describes: \(error)")
        }
        // A resync, or a changed pipeline, replaces what the mirror holds (a pipeline change repeats the seq).
        let startsOver = change.resync || change.pipelineChanged
        if let state, !startsOver, state.epoch == decoded.epoch, decoded.seq <= state.seq {
            throw Mismatch(description: "seq \(decoded.seq) does not follow \(state.seq)")
        }
        if decoded.status == .success {
            if let delta {
                guard delta.base == successSeq else {
                    throw Mismatch(
                        description: "a delta based on seq \(delta.base), but the mirror holds seq \(successSeq.map(String.init) ?? "none")")
                }
                do {
                    items = try delta.applied(to: items)
                } catch {
                    throw Mismatch(description: "\(error)")
                }
            } else if let full = decoded.items {
                items = full
            } else {
                throw Mismatch(description: "a success state with neither items nor a delta")
            }
            if let count = decoded.count, count != items.count {
                throw Mismatch(description: "the state has \(count) items, the mirror \(items.count) after applying")
            }
            successSeq = decoded.seq
        } else if startsOver {
            // A fresh start that is not a success: nothing the mirror held is known to be current.
            items = []
            successSeq = nil
        }
        state = decoded
    }

    /// The mirror as a State the daemon would answer `state` with (status and, for a success, the items): for
    /// comparing the two.
    public var status: String? { state.map { $0.status.rawValue } }
}
