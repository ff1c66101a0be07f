import DepotCore
import DepotPipeline
import DepotPlatform
import DepotWire
import NIOCore

/// One pipeline running for all the subscriptions that use it (equal pipelines share one): each published
/// state is evaluated once, and what comes out is posted, as `StateFrame`s encoded at most once each, to every
/// event loop's subscriber group, tagged with the shared pipeline's number so that only its subscriptions take it.
///
/// States come in seq order from the fan-out; a timing operator's timer lets states out later, from an event loop.
/// Both run under the shared pipeline's lock, which is also held while posting, so frames leave in the order the
/// pipeline gives them. Deltas are computed on the pipeline's output: from the last success it let out.
final class SharedPipeline: Sendable {
    /// Tags the shared pipeline's frames; 0 is the repository's own states.
    let number: Int
    /// What the registry knows it by: the pipeline's canonical JSON, or `name:NAME` for a named one.
    let key: String
    private let epoch: String
    private let groups: [SubscriberGroup]
    /// The replay ring's bounds, read at every state.
    private let limits: LiveLimits
    private let onEncode: @Sendable () -> Void

    private struct Running {
        var run: PipelineRun
        var idField: String
        /// The last state the repository published, which a changed pipeline starts from.
        var lastPublished: PublishedState
        /// How many times the pipeline was changed; a subscription takes a frame of a newer generation whatever
        /// its seq, and tells its client `pipelineChanged`.
        var generation = 0
        /// The current state as the pipeline shapes it: what a subscription that starts now is sent first; nil
        /// when `statuses` holds it back.
        var current: StateFrame?
        var lastReceivedSeq = -1
        /// The last success the pipeline let out, the base of the next one's delta.
        var lastSuccess: (seq: Int, items: ItemCollection, idField: String)?
        var timer: Scheduled<Void>?
        var subscribers = 0
        /// The last frame let out, and those before it, for subscriptions that resume.
        var lastEmitted: StateFrame?
        var ring = ReplayRing()
        /// The seq of the state this generation started from: nothing before it can be resumed after.
        var startSeq: Int
        /// Recent current states that were not let out (the first, and those a pipeline held back) but that
        /// subscriptions started from: their seq and the success a client holds with them, for a resume after them.
        var startingPoints = CircularBuffer<(seq: Int, heldSuccess: Int?)>(initialCapacity: 4)

        /// Remembers `frame`, made current without being let out, as a state a client may hold.
        mutating func rememberStartingPoint(_ frame: StateFrame?) {
            guard let frame else { return }
            if startingPoints.count >= 64 { startingPoints.removeFirst() }
            startingPoints.append((frame.seq, frame.heldSuccess))
        }
    }

    private let running: Locked<Running>

    /// A shared pipeline whose first state is `published` (the repository's current one).
    init(
        number: Int, key: String, pipeline: Pipeline, published: PublishedState, idField: String, epoch: String,
        groups: [SubscriberGroup], limits: LiveLimits = LiveLimits(ConnectionLimits()), onEncode: @escaping @Sendable () -> Void
    ) {
        self.number = number
        self.key = key
        self.epoch = epoch
        self.groups = groups
        self.limits = limits
        self.onEncode = onEncode
        var state = Running(
            run: PipelineRun(pipeline, idField: idField), idField: idField, lastPublished: published, startSeq: published.seq)
        state.lastReceivedSeq = published.seq
        running = Locked(state)
        running.withLock { start(from: published, &$0) }
    }

    /// The event loop this pipeline's timers run on: pipelines take the loops in turn by their number, so one loop
    /// does not carry every pipeline's throttle, debounce and delay. Nil without loops (tests of the fan-out alone).
    var timerLoop: (any EventLoop)? {
        groups.isEmpty ? nil : groups[Int(UInt(bitPattern: number) % UInt(groups.count))].eventLoop
    }

    /// The pipeline running now.
    var pipeline: Pipeline {
        running.withLock { $0.run.pipeline }
    }

    /// Starts the run over `published`: the current state through the pipeline, for subscriptions starting now.
    /// The stages that remember (removeDuplicates, throttle) count it as sent: every subscription starts with it.
    private func start(from published: PublishedState, _ running: inout Running) {
        let shaped = running.run.shape(published)
        _ = running.run.receive(published, at: .now)
        running.lastSuccess = nil
        running.current = shaped.map { makeFrame($0, &running) }
        running.startingPoints.removeAll()
        running.rememberStartingPoint(running.current)
    }

    /// The named pipeline this shared pipeline runs was changed: from now on it runs `pipeline`, and every subscription
    /// is sent the current state through it at once, marked `pipelineChanged`, in full.
    func replace(with pipeline: Pipeline) {
        running.withLock { running in
            running.timer?.cancel()
            running.timer = nil
            running.run = PipelineRun(pipeline, idField: running.idField)
            running.generation += 1
            running.ring = ReplayRing()
            running.lastEmitted = nil
            running.startSeq = running.lastPublished.seq
            start(from: running.lastPublished, &running)
            if let current = running.current { emit(current, &running) }
            armTimer(&running)
        }
    }

    /// The named pipeline this shared pipeline runs was deleted: every subscription of it ends, told `reason`.
    func end(reason: String) {
        running.withLock { running in
            running.timer?.cancel()
            running.timer = nil
            for group in groups {
                group.endPipeline(number, reason: reason)
            }
        }
    }

    /// The current state through the pipeline, for a subscription that starts now; nil when it holds it back.
    var current: StateFrame? {
        running.withLock { $0.current }
    }

    /// The subscriptions counted in.
    var subscriberCount: Int {
        running.withLock { $0.subscribers }
    }

    /// Counts a subscription in; the fan-out's registry holds its lock around this and `leave`.
    func join() {
        running.withLock { $0.subscribers += 1 }
    }

    /// Counts a subscription out; true when none is left (the registry then stops the shared pipeline, after a while).
    func leave() -> Bool {
        running.withLock { running in
            running.subscribers -= 1
            return running.subscribers <= 0
        }
    }

    /// The registry dropped the shared pipeline: its timer stops.
    func stop() {
        running.withLock { running in
            running.timer?.cancel()
            running.timer = nil
        }
    }

    /// A state the repository published (in seq order; one seen already is ignored).
    func receive(_ published: PublishedState, idField: String) {
        running.withLock { running in
            guard published.seq > running.lastReceivedSeq else { return }
            running.lastReceivedSeq = published.seq
            running.lastPublished = published
            if idField != running.idField {
                // The id field changed (a reload): select keeps the new one; the stages start over.
                running.run = PipelineRun(running.run.pipeline, idField: idField)
                running.idField = idField
                running.lastSuccess = nil
            }
            var currentFrame: StateFrame?
            for state in running.run.receive(published, at: .now) {
                let frame = makeFrame(state, &running)
                // Let out at once, it is the current state as the pipeline shapes it.
                if state.seq == published.seq { currentFrame = frame }
                emit(frame, &running)
            }
            if let currentFrame {
                running.current = currentFrame
            } else {
                running.current = running.run.shape(published).map {
                    StateFrame($0, epoch: epoch, pipelineNumber: number, generation: running.generation, onEncode: onEncode)
                }
                running.rememberStartingPoint(running.current)
            }
            armTimer(&running)
        }
    }

    /// The timer: lets out what is due, and arms for the next.
    private func timerFired() {
        running.withLock { running in
            running.timer = nil
            for state in running.run.advance(to: .now) {
                emit(makeFrame(state, &running), &running)
            }
            armTimer(&running)
        }
    }

    private func armTimer(_ running: inout Running) {
        running.timer?.cancel()
        running.timer = nil
        guard let deadline = running.run.deadline, let loop = timerLoop else { return }
        let wait = max(.zero, ContinuousClock.now.duration(to: deadline))
        running.timer = loop.scheduleTask(in: TimeAmount(wait)) { [weak self] in
            self?.timerFired()
        }
    }

    /// The frame for a state the pipeline let out, with its delta from the last success it let out.
    private func makeFrame(_ state: PublishedState, _ running: inout Running) -> StateFrame {
        let frame = StateFrame(
            state, epoch: epoch, delta: StateFanout.delta(to: state, from: running.lastSuccess, idField: running.idField),
            precedingSuccess: running.lastSuccess?.seq, pipelineNumber: number, generation: running.generation, onEncode: onEncode)
        if let items = state.state.items {
            running.lastSuccess = (state.seq, items, running.idField)
        }
        return frame
    }

    /// Where a subscription that holds the state `since` of this shared pipeline's output resumes: the frames let out
    /// after it (the ring's, then the last one), and the success the client holds. Nil when that is not known: a
    /// state before this generation started (or, for a named pipeline, the one it started from, which an older
    /// version may have shaped too), one the shared pipeline no longer holds, or output dropped from the ring since.
    func resumption(after since: Int) -> (replay: ArraySlice<ReplayRing.Entry>, last: StateFrame?, heldSuccess: Int?, generation: Int)? {
        let isNamed = key.hasPrefix(StateFanout.namedKeyPrefix)
        return running.withLock { running in
            guard since >= running.startSeq, since > running.startSeq || (!isNamed && running.generation == 0) else { return nil }
            let held: Int??
            if let last = running.lastEmitted, last.seq == since {
                held = .some(last.heldSuccess)
            } else if let point = running.startingPoints.last(where: { $0.seq == since }) {
                held = .some(point.heldSuccess)
            } else {
                held = running.ring.sparseEntry(since).map(\.heldSuccess)
            }
            guard let heldSuccess = held, let replay = running.ring.sparseEntries(after: since) else { return nil }
            let last = running.lastEmitted.flatMap { $0.seq > since ? $0 : nil }
            return (replay, last, heldSuccess, running.generation)
        }
    }

    /// Lets `frame` out: the frame let out before it goes to the ring.
    private func emit(_ frame: StateFrame, _ running: inout Running) {
        if let retired = running.lastEmitted {
            let limits = limits.current
            running.ring.append(ReplayRing.Entry(retiring: retired), limit: limits.replayStates, byteLimit: limits.replayBytes)
        }
        running.lastEmitted = frame
        post(frame)
    }

    private func post(_ frame: StateFrame) {
        for group in groups {
            group.post(frame)
        }
    }
}
