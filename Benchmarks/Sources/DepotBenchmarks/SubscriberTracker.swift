import Dispatch
import Synchronization

/// A state's arrival at one subscriber: when its whole message had been read.
public struct Arrival: Sendable {
    public var subscriber: Int
    public var seq: Int
    public var time: UInt64
    public var bytes: Int
}

/// Records every state that reaches the subscribers and lets the driver wait until all of them have a given one.
///
/// The driver arms it (a seq, or a number of messages, and how many subscribers must get there), then acts,
/// then waits. Arming before acting means an arrival can never be missed between the act and the wait.
public final class SubscriberTracker: MessageSink {
    private let arrivals = Mutex<[Arrival]>([])
    private let generation = Atomic<Int>(0)
    private let targetSeq = Atomic<Int>(Int.max)
    private let targetMessages = Atomic<Int>(Int.max)
    private let expected = Atomic<Int>(0)
    private let reached = Atomic<Int>(0)
    private let closedCount = Atomic<Int>(0)
    private let signal = DispatchSemaphore(value: 0)

    public init() {}

    /// Waits for `count` subscribers to hold a state with `seq` or newer, or to have received `messages` messages.
    public func arm(seq: Int = .max, messages: Int = .max, count: Int) {
        targetSeq.store(seq, ordering: .relaxed)
        targetMessages.store(messages, ordering: .relaxed)
        reached.store(0, ordering: .relaxed)
        expected.store(count, ordering: .relaxed)
        generation.add(1, ordering: .sequentiallyConsistent)
    }

    /// Waits for what `arm` named; throws after `timeout` seconds, saying how many subscribers got there.
    public func wait(timeout: Double, what: @autoclosure () -> String) throws {
        if signal.wait(timeout: .now() + timeout) == .timedOut {
            throw BenchError(
                "timed out after \(Int(timeout)) s waiting for \(what()): \(reached.load(ordering: .relaxed)) of \(expected.load(ordering: .relaxed)) subscribers got there, \(closedCount.load(ordering: .relaxed)) connections were closed by the server"
            )
        }
    }

    /// The arrivals since the last call, in no particular order.
    public func takeArrivals() -> [Arrival] {
        arrivals.withLock { all in
            defer { all.removeAll(keepingCapacity: true) }
            return all
        }
    }

    public func received(_ message: FramedMessage, at time: UInt64, on connection: ClientConnection) {
        connection.messageCount += 1
        if let seq = message.seq {
            connection.highestSeq = max(connection.highestSeq, seq)
            arrivals.withLock { $0.append(Arrival(subscriber: connection.index, seq: seq, time: time, bytes: message.bytes)) }
        }
        let current = generation.load(ordering: .sequentiallyConsistent)
        guard connection.countedGeneration != current else { return }
        if connection.highestSeq >= targetSeq.load(ordering: .relaxed) || connection.messageCount >= targetMessages.load(ordering: .relaxed) {
            connection.countedGeneration = current
            if reached.add(1, ordering: .relaxed).newValue == expected.load(ordering: .relaxed) {
                signal.signal()
            }
        }
    }

    public func closed(_ connection: ClientConnection) {
        closedCount.add(1, ordering: .relaxed)
    }
}
