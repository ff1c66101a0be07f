import DepotCore
import DepotOperators
import DepotPipeline
import DepotPlatform
import DepotRPC
import DepotWire
import Logging
import NIOCore

/// Receives every state the repository publishes, makes it a `StateFrame` (its delta from the previous success
/// computed once), and hands it to the subscriber groups on each event loop. It keeps the current state for reads,
/// and the recent states' encodings in the replay ring, for subscriptions that resume. It runs the pipelines
/// subscriptions use, one `SharedPipeline` per distinct pipeline, each evaluated once per state.
///
/// `stateDidChange` runs under the repository's publication lock, so states arrive here in seq order and
/// are passed to each loop in that order.
final class StateFanout: StateObserver {
    private struct Published {
        var current: StateFrame?
        var ring = ReplayRing()
        /// The last success state published, for the next one's delta.
        var lastSuccess: (seq: Int, items: ItemCollection, idField: String)?
        /// The number of the next subscription's id, and how many subscriptions are active.
        var nextSubscription = 1
        var activeSubscriptions = 0
        /// The pipelines subscriptions use, by their canonical key. They receive each state in the same turn of the
        /// lock that makes it current, and one is created from the current state in a turn of its own: a new shared
        /// pipeline starts from the current state and misses none after it.
        var pipelines = PipelineRegistry()
        /// How many connections each group (by its index in `groups`) has: a state is posted only to groups that have
        /// one. A connection is counted before it reads the current state, both under this lock, so a state it did
        /// not read is posted to its group.
        var connectionsByGroup: [Int]
    }

    /// What was published, the subscriptions and the pipelines that follow it: one lock, held only to read or change
    /// them (a pipeline's evaluation runs on its own queue).
    private let published: Locked<Published>
    /// The run the states' seqs belong to, written into every State.
    let epoch: String
    private let groups: [SubscriberGroup]
    private let limits: LiveLimits
    /// The repository's id field now, named in every delta.
    private let idField: @Sendable () -> String
    private let onSubscribersChanged: @Sendable (Int) -> Void
    /// Told of every encoding of a state; nil (depotd) for nobody.
    private let encodingObserver: (any EncodingObserver)?
    /// Where large states are encoded, off the loops (the server's; `.callersThread` in a fan-out tested alone).
    let pool: CPUPool
    /// The named pipelines subscriptions may follow.
    let library: PipelineLibrary

    /// - Parameters:
    ///   - eventLoops: every loop connections may live on.
    ///   - limits: the replay ring's bounds, read at every state.
    ///   - idField: the repository's id field.
    ///   - encodingObserver: told of every encoding of a state (see `EncodingObserver`); nil for nobody.
    ///   - onSubscribersChanged: called with the new number of active subscriptions whenever it changes.
    init(
        eventLoops: [any EventLoop], epoch: String, limits: LiveLimits = LiveLimits(ConnectionLimits()),
        idField: @escaping @Sendable () -> String = { Repository.defaultIDField },
        library: PipelineLibrary = PipelineLibrary(storeDirectory: nil, logger: Logger(label: "depot.pipelines")),
        encodingObserver: (any EncodingObserver)? = nil, pool: CPUPool = .callersThread,
        onSubscribersChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.library = library
        self.groups = eventLoops.map { SubscriberGroup(eventLoop: $0, limits: limits) }
        self.published = Locked(Published(connectionsByGroup: Array(repeating: 0, count: eventLoops.count)))
        self.epoch = epoch
        self.limits = limits
        self.idField = idField
        self.onSubscribersChanged = onSubscribersChanged
        self.encodingObserver = encodingObserver
        self.pool = pool
    }

    /// Active subscriptions, across all connections.
    var subscriberCount: Int {
        published.withLock { $0.activeSubscriptions }
    }

    func subscriptionStarted() {
        changeActiveSubscriptions(by: 1)
    }

    func subscriptionsEnded(_ count: Int) {
        changeActiveSubscriptions(by: -count)
    }

    private func changeActiveSubscriptions(by delta: Int) {
        onSubscribersChanged(
            published.withLock { published in
                published.activeSubscriptions += delta
                return published.activeSubscriptions
            })
    }

    func stateDidChange(to state: PublishedState) {
        let idField = idField()
        let limits = limits.current
        let (replayStates, replayBytes) = (limits.replayStates, limits.replayBytes)
        // The delta is worked out before the lock, which event loops take for `current`, `encoded` and `resumption`:
        // a new list that was not made from the last (a file edited, an HTTP refresh) costs a pass over both. Only
        // this method, which the repository calls one state at a time, writes `lastSuccess`, so it is still the
        // last success when the frame is installed.
        let last = published.withLock { $0.lastSuccess }
        let frame = StateFrame(
            state, epoch: epoch, delta: Self.delta(to: state, from: last, idField: idField), precedingSuccess: last?.seq,
            observer: encodingObserver, pool: pool)
        // The frame it replaces is let go only once the new one is on its way (below): its full forms may be a
        // million items' bytes, whose return to the system (munmap) is tens of milliseconds that neither the loops,
        // waiting on this lock, nor the subscribers should wait for.
        let (retired, reached) = published.withLock { published -> (StateFrame?, [Int]) in
            let retired = published.current
            if let retired {
                published.ring.append(ReplayRing.Entry(retiring: retired), limit: replayStates, byteLimit: replayBytes)
            }
            published.current = frame
            if let items = state.state.items {
                published.lastSuccess = (state.seq, items, idField)
            }
            // Handed over to each pipeline's queue: nothing is evaluated here.
            for shared in published.pipelines.values {
                shared.receive(state, idField: idField)
            }
            return (retired, published.connectionsByGroup.indices.filter { published.connectionsByGroup[$0] > 0 })
        }
        // Only loops with subscribing connections get the state: a loop woken for none would cost each state a
        // thread switch. One whose first connection subscribes after this reads this state as `current`.
        for index in reached {
            groups[index].post(frame)
        }
        withExtendedLifetime(retired) {}
    }

    /// The shared pipeline running the pipeline `reference` gives, created from the current state when no subscription
    /// uses it yet; the caller counts as one of its subscriptions until it calls `leave(_:)`. A named pipeline is
    /// looked up here, under the registry's lock, so a change made meanwhile is never missed. notFound when there
    /// is none by that name; limitExceeded when `maxPipelines` distinct pipelines run already (each costs an
    /// evaluation of every state).
    func join(_ reference: PipelineReference) throws(RPCError) -> SharedPipeline {
        try published.withLock { published throws(RPCError) in
            let key: String
            let pipeline: Pipeline
            switch reference {
            case .operators(let operators):
                (key, pipeline) = (operators.key, operators)
            case .named(let name):
                guard let entry = library.entry(name) else { throw .pipelineLibrary(.notFound(name: name)) }
                (key, pipeline) = (Self.key(named: name), entry.named.pipeline)
            }
            guard published.pipelines[key] != nil || published.pipelines.count < Self.maxPipelines else {
                throw .tooManyPipelines(most: Self.maxPipelines)
            }
            guard let current = published.current else {
                preconditionFailure("StateFanout used before it was added to the repository as an observer")
            }
            let shared =
                published.pipelines[key]
                ?? SharedPipeline(
                    number: published.pipelines.takeNumber(), key: key, pipeline: pipeline,
                    published: current.published, idField: idField(), epoch: epoch, groups: groups, limits: limits,
                    observer: encodingObserver, pool: pool)
            published.pipelines[key] = shared
            shared.join()
            return shared
        }
    }

    /// The most distinct pipelines run at once.
    static let maxPipelines = 256

    /// How long a pipeline keeps running after its last subscription ended, so a client that reconnects (a
    /// restarted status bar) can resume through it.
    static let pipelineLinger = TimeAmount.seconds(60)

    /// A subscription of `shared` ended; when it was the last, it stops after `pipelineLinger` unless a
    /// subscription joins it meanwhile.
    func leave(_ shared: SharedPipeline) {
        let idle = published.withLock { _ in shared.leave() }
        guard idle else { return }
        guard let loop = shared.timerLoop else { return stopIfIdle(shared) }
        loop.scheduleTask(in: Self.pipelineLinger) { [weak self] in self?.stopIfIdle(shared) }
    }

    /// Stops `shared` if no subscription uses it.
    private func stopIfIdle(_ shared: SharedPipeline) {
        published.withLock { published in
            if shared.subscriberCount <= 0, published.pipelines[shared.key] === shared {
                published.pipelines[shared.key] = nil
                shared.stop()
            }
        }
    }

    /// Stops every shared pipeline and returns once none is evaluating: at shutdown, once the connections closed.
    func stopPipelines() async {
        let running = published.withLock { published in
            defer { published.pipelines.removeAll() }
            return Array(published.pipelines.values)
        }
        for shared in running {
            await shared.stopAndSettle()
        }
    }

    /// The named pipeline `name` may have changed in the library: its subscriptions switch to what it is now, or
    /// end when it is gone. `applied` is called once they have (the shared pipeline evaluates on its own queue), or
    /// at once when nothing runs it: a client answered then finds the change in place.
    func namedPipelineChanged(_ name: String, applied: @escaping @Sendable () -> Void = {}) {
        let changed = published.withLock { published -> Bool in
            let key = Self.key(named: name)
            guard let shared = published.pipelines[key] else { return false }
            if let entry = library.entry(name) {
                guard entry.named.pipeline != shared.pipeline else { return false }
                shared.replace(with: entry.named.pipeline, applied: applied)
            } else {
                published.pipelines[key] = nil
                shared.end(reason: "the pipeline \"\(name)\" was deleted", applied: applied)
            }
            return true
        }
        if !changed { applied() }
    }

    /// Ends, on every connection, the subscriptions of peers `mayRead` no longer lets read, telling them `reason`.
    func endSubscriptions(unless mayRead: @escaping @Sendable (PeerCredentials?) -> Bool, reason: String) {
        for group in groups {
            group.endSubscriptions(unless: mayRead, reason: reason)
        }
    }

    /// The subscriptions following the named pipeline `name` now.
    func subscriberCount(ofPipeline name: String) -> Int {
        published.withLock { $0.pipelines[Self.key(named: name)]?.subscriberCount ?? 0 }
    }

    /// The prefix of a named pipeline's key; other keys are a pipeline's JSON, which starts with `[`.
    static let namedKeyPrefix = "name:"

    private static func key(named name: String) -> String {
        namedKeyPrefix + name
    }

    /// The shared pipelines running now (at most `maxPipelines`), for stats.
    var pipelineCount: Int {
        published.withLock { $0.pipelines.count }
    }

    /// The delta from the last success to `state`, when it is a success with a delta no larger than its items.
    static func delta(
        to state: PublishedState, from last: (seq: Int, items: ItemCollection, idField: String)?, idField: String
    ) -> (base: Int, delta: ItemDelta, idField: String)? {
        guard let items = state.state.items, let last, last.idField == idField,
            // A collection made from the last success's very one (a removal, a feed's changes) knows its delta.
            let delta = ItemDelta(from: last.items, to: items),
            delta.payloadBytes < items.jsonByteCount + items.count
        else { return nil }
        return (last.seq, delta, idField)
    }

    /// The current state. The repository publishes its first state when the fan-out is added as an observer, so
    /// this is set before any connection can ask.
    var current: StateFrame {
        guard let current = published.withLock({ $0.current }) else {
            preconditionFailure("StateFanout used before it was added to the repository as an observer")
        }
        return current
    }

    /// The snapshot of `state`: the current state's or a recent one's when it was encoded, encoded again otherwise.
    func encoded(_ state: PublishedState) -> ByteBuffer {
        let known = published.withLock { published -> ByteBuffer? in
            if let current = published.current, current.seq == state.seq { return current.snapshot }
            return published.ring.entry(state.seq)?.snapshot
        }
        if let known { return known }
        encodingObserver?.encoded(items: state.state.items?.count ?? 0)
        return StateEncoder.encode(state, epoch: epoch)
    }

    /// Where a subscription that asked to resume after `since` starts: the current state, and when `since` is of
    /// this run and not ahead of it, the states the ring holds after it and the success the client holds at
    /// `since`. `replay` is nil when a resume is not possible.
    func resumption(after since: ResumePoint) -> (current: StateFrame, replay: ArraySlice<ReplayRing.Entry>?, heldSuccess: Int?) {
        published.withLock { published in
            guard let current = published.current else {
                preconditionFailure("StateFanout used before it was added to the repository as an observer")
            }
            guard since.epoch == epoch, since.seq <= current.seq else { return (current, nil, nil) }
            if since.seq == current.seq { return (current, [], Self.heldSuccess(at: since.seq, isSuccess: current.isSuccess)) }
            guard let replay = published.ring.entries(after: since.seq, before: current.seq) else { return (current, nil, nil) }
            let sinceIsSuccess = published.ring.entry(since.seq)?.isSuccess ?? false
            return (current, replay, Self.heldSuccess(at: since.seq, isSuccess: sinceIsSuccess))
        }
    }

    /// The success a client that resumes after the state `seq` is known to hold: that state, when it is a success (a
    /// subscriber sent a success holds its items, in either mode). After any other state it may hold none — its
    /// subscription started at `loading`, or resynced to it — or an older success than the last before `seq`, so the
    /// first success replayed is sent in full, and deltas follow it.
    static func heldSuccess(at seq: Int, isSuccess: Bool) -> Int? {
        isSuccess ? seq : nil
    }

    /// The replay ring's size now: states and bytes.
    var replayRingSize: (states: Int, bytes: Int) {
        published.withLock { ($0.ring.count, $0.ring.bytes) }
    }

    /// Every active subscription with its queue, and how many connections are parked, gathered from each loop;
    /// `done` is called once, on the first loop (at once when there are none).
    func gatherSubscriptions(_ done: @escaping @Sendable ([DepotStatistics.Subscription], _ parked: Int) -> Void) {
        guard let first = groups.first else { return done([], 0) }
        let gathered = groups.map { $0.gatherSubscriptions() }
        EventLoopFuture.reduce(into: (subscriptions: [DepotStatistics.Subscription](), parked: 0), gathered, on: first.eventLoop) { all, group in
            all.subscriptions += group.subscriptions
            all.parked += group.parked
        }
        .whenSuccess { all in done(all.subscriptions.sorted { $0.subscription < $1.subscription }, all.parked) }
    }

    /// The subscriber group of `eventLoop`.
    func group(for eventLoop: any EventLoop) -> SubscriberGroup {
        groups[groupIndex(of: eventLoop)]
    }

    private func groupIndex(of eventLoop: any EventLoop) -> Int {
        guard let index = groups.firstIndex(where: { $0.eventLoop === eventLoop }) else {
            preconditionFailure("StateFanout was not given the event loop \(eventLoop)")
        }
        return index
    }

    /// Adds `connection` to its loop's group, before it reads the state its first subscription starts from: every
    /// state published from then on is posted to that group. Called on the connection's loop.
    func addToGroup(_ connection: ConnectionSubscriptions, on eventLoop: any EventLoop) {
        let index = groupIndex(of: eventLoop)
        published.withLock { $0.connectionsByGroup[index] += 1 }
        groups[index].add(connection)
    }

    /// Removes `connection` from its loop's group, once it has no subscription. Called on the connection's loop.
    func removeFromGroup(_ connection: ConnectionSubscriptions, on eventLoop: any EventLoop) {
        let index = groupIndex(of: eventLoop)
        groups[index].remove(connection)
        published.withLock { $0.connectionsByGroup[index] -= 1 }
    }

    /// A new subscription id, unique within this daemon run.
    func makeSubscriptionID() -> String {
        let number = published.withLock { published in
            defer { published.nextSubscription += 1 }
            return published.nextSubscription
        }
        return "s\(number)"
    }
}

/// The shared pipelines by their canonical key, and the number the next one gets: one value under the fan-out's lock.
private struct PipelineRegistry {
    private var running: [String: SharedPipeline] = [:]
    private var nextNumber = 1

    var values: Dictionary<String, SharedPipeline>.Values { running.values }
    var count: Int { running.count }

    subscript(key: String) -> SharedPipeline? {
        get { running[key] }
        set { running[key] = newValue }
    }

    mutating func removeAll() {
        running.removeAll()
    }

    /// A number for a new pipeline, unique within this daemon run.
    mutating func takeNumber() -> Int {
        defer { nextNumber += 1 }
        return nextNumber
    }
}
