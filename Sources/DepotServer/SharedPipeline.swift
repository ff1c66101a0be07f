import DepotCore
import DepotOperators
import DepotPipeline
import DepotPlatform
import DepotWire
import Dispatch
import NIOCore

/// One pipeline running for all the subscriptions that use it (equal pipelines share one): each published
/// state is evaluated once, and what comes out is posted, as `StateFrame`s encoded at most once each, to every
/// event loop's subscriber group, tagged with the shared pipeline's number so that only its subscriptions take it.
///
/// The evaluation runs on the shared pipeline's own serial queue, never on an event loop: the fan-out hands each
/// state over in seq order (`receive`, O(1)), and a timing operator's timer, which fires on an event loop, hands
/// its turn over the same way. A pipeline's items through its filter, select and sort cost time in proportion to
/// the collection. What the loops read — the current frame, the frames let out for a resume, the subscriber count —
/// is kept apart, under a lock held only to read or replace it; the frames are posted under that lock too, so they
/// leave in the order the pipeline gives them, and a subscription that reads the current frame then receives
/// every frame posted after it. Deltas are computed on the pipeline's output: from the last success it let out.
final class SharedPipeline: Sendable {
    /// Tags the shared pipeline's frames; 0 is the repository's own states.
    let number: Int
    /// What the registry knows it by: the pipeline's canonical JSON, or `name:NAME` for a named one.
    let key: String
    private let epoch: String
    private let groups: [SubscriberGroup]
    /// The replay ring's bounds, read at every state.
    private let limits: LiveLimits
    private let observer: (any EncodingObserver)?
    private let pool: CPUPool
    /// Where the pipeline is evaluated, one state or timer turn at a time, in order.
    private let queue: DispatchQueue

    /// What the evaluation holds: touched only on `queue` (and in `init`), so its lock is never contended.
    private struct Evaluation {
        var run: PipelineRun
        var idField: String
        /// The last state the repository published, which a changed pipeline starts from.
        var lastPublished: PublishedState
        var lastReceivedSeq = -1
        /// How many times the pipeline was changed (see `Output.generation`).
        var generation = 0
        /// The last success the pipeline let out, the base of the next one's delta.
        var lastSuccess: (seq: Int, items: ItemCollection, idField: String)?
        var timer: Scheduled<Void>?
        /// Set by `stop` and `end`: no state is evaluated and no timer armed after.
        var stopped = false
    }

    /// What the event loops read, and what the evaluation replaces when it lets a frame out.
    private struct Output {
        var pipeline: Pipeline
        /// How many times the pipeline was changed; a subscription takes a frame of a newer generation whatever
        /// its seq, and tells its client `pipelineChanged`.
        var generation = 0
        /// The current state as the pipeline shapes it: what a subscription that starts now is sent first; nil
        /// when `statuses` holds it back.
        var current: StateFrame?
        var subscribers = 0
        /// The last frame let out, and those before it, for subscriptions that resume.
        var lastEmitted: StateFrame?
        var ring = ReplayRing()
        /// The seq of the state this generation started from: nothing before it can be resumed after.
        var startSeq: Int
        /// Recent current states that were not let out (the first, and those a pipeline held back) but that
        /// subscriptions started from: their seq and whether they are successes, for a resume after them.
        var startingPoints = CircularBuffer<(seq: Int, isSuccess: Bool)>(initialCapacity: 4)

        /// Remembers `frame`, made current without being let out, as a state a client may hold.
        mutating func rememberStartingPoint(_ frame: StateFrame?) {
            guard let frame else { return }
            if startingPoints.count >= 64 { startingPoints.removeFirst() }
            startingPoints.append((frame.seq, frame.isSuccess))
        }
    }

    /// Touched only on `queue`, which evaluates.
    private let evaluation: QueueConfined<Evaluation>
    private let output: Locked<Output>

    /// A shared pipeline whose first state is `published` (the repository's current one), shaped on the pipeline's
    /// queue — a pass over the items, so not on the event loop of the subscription that creates it, nor under the
    /// fan-out's registry lock. Until it is shaped, `current` is nil, and subscriptions that start then take the first
    /// frame this pipeline posts: that state, posted to the loops once shaped (unless `statuses` holds it back).
    init(
        number: Int, key: String, pipeline: Pipeline, published: PublishedState, idField: String, epoch: String,
        groups: [SubscriberGroup], limits: LiveLimits = LiveLimits(ConnectionLimits()),
        observer: (any EncodingObserver)?, pool: CPUPool
    ) {
        self.number = number
        self.key = key
        self.epoch = epoch
        self.groups = groups
        self.limits = limits
        self.observer = observer
        self.pool = pool
        queue = DispatchQueue(label: "depot.pipeline.\(number)")
        var state = Evaluation(run: PipelineRun(pipeline, idField: idField), idField: idField, lastPublished: published)
        state.lastReceivedSeq = published.seq
        evaluation = QueueConfined(state, to: queue)
        output = Locked(Output(pipeline: pipeline, startSeq: published.seq))
        queue.async { [self] in
            evaluation.withValue { evaluation in
                let current = start(from: published, &evaluation)
                // Current, and posted for the subscriptions that started before it was (a subscription that reads it
                // as current ignores the posted frame: it holds that seq). A starting point, not let out: not in the ring.
                output.withLock { output in
                    Self.installStart(current, &output)
                    if let current { post(current) }
                }
            }
        }
    }

    /// The event loop this pipeline's timers run on: pipelines take the loops in turn by their number, so one loop
    /// does not carry every pipeline's throttle, debounce and delay. Nil without loops (tests of the fan-out alone).
    var timerLoop: (any EventLoop)? {
        groups.isEmpty ? nil : groups[Int(UInt(bitPattern: number) % UInt(groups.count))].eventLoop
    }

    /// The pipeline running now.
    var pipeline: Pipeline {
        output.withLock { $0.pipeline }
    }

    /// Starts the run over `published`: the current state through the pipeline, for subscriptions starting now,
    /// which the caller installs as `Output.current` (`installStart`). The stages that remember (removeDuplicates,
    /// throttle) count it as sent: every subscription starts with it.
    private func start(from published: PublishedState, _ evaluation: inout Evaluation) -> StateFrame? {
        // A pass over the items, as `evaluate` is: only on the pipeline's queue.
        dispatchPrecondition(condition: .onQueue(queue))
        let shaped = evaluation.run.shape(published)
        _ = evaluation.run.receive(published, at: .now)
        evaluation.lastSuccess = nil
        return shaped.map { makeFrame($0, &evaluation) }
    }

    private static func installStart(_ current: StateFrame?, _ output: inout Output) {
        output.current = current
        output.startingPoints.removeAll()
        output.rememberStartingPoint(current)
    }

    /// The named pipeline this shared pipeline runs was changed: from now on it runs `pipeline`, and every subscription
    /// is sent the current state through it at once, marked `pipelineChanged`, in full. `applied` is called once the
    /// change is in place (after the states handed over before it), from the pipeline's queue.
    func replace(with pipeline: Pipeline, applied: @escaping @Sendable () -> Void = {}) {
        queue.async { [self] in
            evaluation.withValue { evaluation in
                guard !evaluation.stopped else { return }
                evaluation.timer?.cancel()
                evaluation.timer = nil
                evaluation.run = PipelineRun(pipeline, idField: evaluation.idField)
                evaluation.generation += 1
                let (generation, startSeq) = (evaluation.generation, evaluation.lastPublished.seq)
                let current = start(from: evaluation.lastPublished, &evaluation)
                // One step for the loops: the new generation, its current frame, and that frame let out.
                output.withLock { output in
                    output.pipeline = pipeline
                    output.generation = generation
                    output.ring = ReplayRing()
                    output.lastEmitted = nil
                    output.startSeq = startSeq
                    Self.installStart(current, &output)
                    if let current { emit(current, &output) }
                }
                armTimer(&evaluation)
            }
            applied()
        }
    }

    /// The named pipeline this shared pipeline runs was deleted: every subscription of it ends, told `reason`, after
    /// the states handed over before. `applied` is called then, from the pipeline's queue.
    func end(reason: String, applied: @escaping @Sendable () -> Void = {}) {
        queue.async { [self] in
            halt()
            for group in groups {
                group.endPipeline(number, reason: reason)
            }
            applied()
        }
    }

    /// The current state through the pipeline, for a subscription that starts now; nil when it holds it back.
    var current: StateFrame? {
        output.withLock { $0.current }
    }

    /// The subscriptions counted in.
    var subscriberCount: Int {
        output.withLock { $0.subscribers }
    }

    /// Counts a subscription in; the fan-out's registry holds its lock around this and `leave`.
    func join() {
        output.withLock { $0.subscribers += 1 }
    }

    /// Counts a subscription out; true when none is left (the registry then stops the shared pipeline, after a while).
    func leave() -> Bool {
        output.withLock { output in
            output.subscribers -= 1
            return output.subscribers <= 0
        }
    }

    /// The registry dropped the shared pipeline: its timer stops, and it evaluates nothing more.
    func stop() {
        queue.async { [self] in halt() }
    }

    /// Stops, and returns once the queue has run everything handed to it before.
    func stopAndSettle() async {
        await withCheckedContinuation { (settled: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                halt()
                settled.resume()
            }
        }
    }

    private func halt() {
        evaluation.withValue { evaluation in
            evaluation.stopped = true
            evaluation.timer?.cancel()
            evaluation.timer = nil
        }
    }

    /// A state the repository published (in seq order; one seen already is ignored): evaluated on the pipeline's
    /// queue.
    func receive(_ published: PublishedState, idField: String) {
        queue.async { [self] in evaluate(published, idField: idField) }
    }

    private func evaluate(_ published: PublishedState, idField: String) {
        // A pass over the items never runs on an event loop or under the fan-out's lock: only here.
        dispatchPrecondition(condition: .onQueue(queue))
        evaluation.withValue { evaluation in
            guard !evaluation.stopped, published.seq > evaluation.lastReceivedSeq else { return }
            evaluation.lastReceivedSeq = published.seq
            evaluation.lastPublished = published
            if idField != evaluation.idField {
                // The id field changed (a reload): select keeps the new one; the stages start over.
                evaluation.run = PipelineRun(evaluation.run.pipeline, idField: idField)
                evaluation.idField = idField
                evaluation.lastSuccess = nil
            }
            var frames: [StateFrame] = []
            var currentFrame: StateFrame?
            for state in evaluation.run.receive(published, at: .now) {
                let frame = makeFrame(state, &evaluation)
                // Let out at once, it is the current state as the pipeline shapes it.
                if state.seq == published.seq { currentFrame = frame }
                frames.append(frame)
            }
            let generation = evaluation.generation
            let heldBack =
                currentFrame == nil
                ? evaluation.run.shape(published).map {
                    StateFrame($0, epoch: epoch, pipelineNumber: number, generation: generation, observer: observer, pool: pool)
                } : nil
            output.withLock { output in
                for frame in frames {
                    emit(frame, &output)
                }
                if let currentFrame {
                    output.current = currentFrame
                } else {
                    output.current = heldBack
                    output.rememberStartingPoint(heldBack)
                }
            }
            armTimer(&evaluation)
        }
    }

    /// The timer's turn, on the pipeline's queue: lets out what is due, and arms for the next.
    private func timerFired() {
        dispatchPrecondition(condition: .onQueue(queue))
        evaluation.withValue { evaluation in
            guard !evaluation.stopped else { return }
            evaluation.timer = nil
            let frames = evaluation.run.advance(to: .now).map { makeFrame($0, &evaluation) }
            output.withLock { output in
                for frame in frames {
                    emit(frame, &output)
                }
            }
            armTimer(&evaluation)
        }
    }

    private func armTimer(_ evaluation: inout Evaluation) {
        evaluation.timer?.cancel()
        evaluation.timer = nil
        guard !evaluation.stopped, let deadline = evaluation.run.deadline, let loop = timerLoop else { return }
        let wait = max(.zero, ContinuousClock.now.duration(to: deadline))
        // The timer fires on a loop, which hands the turn to the queue: what is let out may cost a pass over the items.
        evaluation.timer = loop.scheduleTask(in: TimeAmount(wait)) { [weak self] in
            guard let self else { return }
            self.queue.async { self.timerFired() }
        }
    }

    /// The frame for a state the pipeline let out, with its delta from the last success it let out.
    private func makeFrame(_ state: PublishedState, _ evaluation: inout Evaluation) -> StateFrame {
        let frame = StateFrame(
            state, epoch: epoch, delta: StateFanout.delta(to: state, from: evaluation.lastSuccess, idField: evaluation.idField),
            precedingSuccess: evaluation.lastSuccess?.seq, pipelineNumber: number, generation: evaluation.generation, observer: observer, pool: pool)
        if let items = state.state.items {
            evaluation.lastSuccess = (state.seq, items, evaluation.idField)
        }
        return frame
    }

    /// Where a subscription that holds the state `since` of this shared pipeline's output resumes: the frames let out
    /// after it (the ring's, then the last one), and the success the client holds. Nil when that is not known: a
    /// state before this generation started (or, for a named pipeline, the one it started from, which an older
    /// version may have shaped too), one the shared pipeline no longer holds, or output dropped from the ring since.
    func resumption(after since: Int) -> (replay: ArraySlice<ReplayRing.Entry>, last: StateFrame?, heldSuccess: Int?, generation: Int)? {
        let isNamed = key.hasPrefix(StateFanout.namedKeyPrefix)
        return output.withLock { output in
            guard since >= output.startSeq, since > output.startSeq || (!isNamed && output.generation == 0) else { return nil }
            // Whether the state `since` is a success: nil when the pipeline did not let it out (or no longer knows).
            let sinceIsSuccess: Bool?
            if let last = output.lastEmitted, last.seq == since {
                sinceIsSuccess = last.isSuccess
            } else if let point = output.startingPoints.last(where: { $0.seq == since }) {
                sinceIsSuccess = point.isSuccess
            } else {
                sinceIsSuccess = output.ring.sparseEntry(since).map(\.isSuccess)
            }
            guard let sinceIsSuccess, let replay = output.ring.sparseEntries(after: since) else { return nil }
            let last = output.lastEmitted.flatMap { $0.seq > since ? $0 : nil }
            return (replay, last, StateFanout.heldSuccess(at: since, isSuccess: sinceIsSuccess), output.generation)
        }
    }

    /// Lets `frame` out: the frame let out before it goes to the ring.
    private func emit(_ frame: StateFrame, _ output: inout Output) {
        if let retired = output.lastEmitted {
            let limits = limits.current
            output.ring.append(ReplayRing.Entry(retiring: retired), limit: limits.replayStates, byteLimit: limits.replayBytes)
        }
        output.lastEmitted = frame
        post(frame)
    }

    private func post(_ frame: StateFrame) {
        for group in groups {
            group.post(frame)
        }
    }
}
