import Dispatch
import Synchronization

/// C clients, each sending one request, waiting for its whole answer, and sending the next at once, for a
/// fixed time: the RPC load. Each answer's latency is from writing the request to reading its last byte.
public final class ClosedLoopClients: MessageSink {
    private let measureFrom: Atomic<UInt64>
    private let measureUntil: Atomic<UInt64>
    private let active = Atomic<Int>(0)
    private let errors = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    public init() {
        measureFrom = Atomic(.max)
        measureUntil = Atomic(.max)
    }

    /// Runs `connections` (already in a reader pool, each with its request) for `warmUp` + `duration` seconds;
    /// returns the latencies, in nanoseconds, of the answers completed during `duration`. Runs one after the other on
    /// the same connections are allowed.
    public func run(_ connections: [ClientConnection], request: [UInt8], warmUp: Double, seconds duration: Double) throws -> [UInt64] {
        let start = MonotonicClock.now()
        measureFrom.store(start + UInt64(warmUp * 1e9), ordering: .relaxed)
        measureUntil.store(start + UInt64((warmUp + duration) * 1e9), ordering: .relaxed)
        active.store(connections.count, ordering: .relaxed)
        // The same connections may run again: each run's latencies are its own (none is in flight between runs).
        for connection in connections {
            connection.request = request
            connection.latencies.removeAll(keepingCapacity: true)
        }
        // Each connection's first request is sent here, before its reader thread can see an answer.
        for connection in connections {
            connection.sendRequest()
        }
        if finished.wait(timeout: .now() + warmUp + duration + 60) == .timedOut {
            throw BenchError("RPC clients did not finish within 60 s of the end of the run: the server stopped answering")
        }
        if errors.load(ordering: .relaxed) > 0 {
            throw BenchError("\(errors.load(ordering: .relaxed)) RPC answers were errors or connections closed; see the server's log above")
        }
        return connections.flatMap(\.latencies)
    }

    public func received(_ message: FramedMessage, at time: UInt64, on connection: ClientConnection) {
        if message.isError { errors.add(1, ordering: .relaxed) }
        connection.lastAnswerBytes = message.bytes
        if time >= measureFrom.load(ordering: .relaxed) && time <= measureUntil.load(ordering: .relaxed) {
            connection.latencies.append(time - connection.sentAt)
        }
        if time < measureUntil.load(ordering: .relaxed) {
            connection.sendRequest()
        } else if active.subtract(1, ordering: .relaxed).newValue == 0 {
            finished.signal()
        }
    }

    public func closed(_ connection: ClientConnection) {
        errors.add(1, ordering: .relaxed)
        if active.subtract(1, ordering: .relaxed).newValue == 0 {
            finished.signal()
        }
    }
}
