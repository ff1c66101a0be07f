import DepotJSON
import DepotPlatform
public import Logging
public import ServiceLifecycle

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// The one shared collection: loads it from a source, keeps it in memory, writes through it, and publishes every
/// change of state, numbered by `seq`, to its observers.
///
/// Mutations (`load`, `remove`, `put`, `patch`, `apply`, `wipe`, refreshes) are accepted synchronously and take turns:
/// each requester's in its order, requesters in a fair turn (`MutationQueue`); each returns a `Mutation` whose result
/// is awaited separately. An optimistic write is shown in its turn and handed to the `WriteLane`, where the source
/// makes the writes one at a time in the order they were shown, while the next turns go on (up to
/// `WriteRules.maxPendingWrites` pending); everything else waits until no write is pending. Reads (`current`,
/// `item(id:)`) answer at once from the last published state and never wait behind a source call.
///
/// What changes is one value, `RepositoryState`, under one lock, whose transitions say what to publish; observers are
/// told under that lock, so every one sees the states in seq order. With a `CollectionCache`, every list the source
/// gives is kept on disk, writes and wipes keep it in step, and a load's `RetrievalStrategy` decides when the cached
/// list stands in for the source.
public final class Repository: Service, Sendable {
    /// The id member used when none is configured.
    public static let defaultIDField = "id"

    /// The state, the rules writes are checked by, and the observers: the repository's one lock.
    struct Core: Sendable {
        var state: RepositoryState
        var rules: WriteRules
        var observers: [any StateObserver] = []
        var activityObservers: [@Sendable (SourceActivity) -> Void] = []
    }

    let logger: Logger
    let queue: MutationQueue
    let lane = WriteLane()
    let cacheLane = CacheLane()
    let sourceCalls = SourceCallRecorder()
    let core: Locked<Core>
    /// What reads see — the state published last, the source, its version — replaced under `core`'s lock and read
    /// without it: a read never waits while observers are told of a state, and an observer may read.
    let reads: Locked<Reads>

    /// What reads see (see `reads`).
    struct Reads: Sendable {
        var latest: PublishedState
        var source: any Source
        var idField: String
        var version: SourceVersion?
        var pending: Int

        init(_ state: RepositoryState) {
            latest = state.latest
            source = state.source
            idField = state.idField
            version = state.confirmed?.version
            pending = state.pending.count
        }
    }
    let cache: (any CollectionCache)?
    let now: @Sendable () -> Date
    /// Names this repository's run of seqs: seqs start again at 0 with every repository (every daemon run), so
    /// a seq means something only with its epoch. Opaque; new for every repository unless given.
    public let epoch: String
    /// How long a mutation under way at shutdown may go on before it is cancelled.
    let stopGrace: Duration

    /// `cache`, when given, keeps the source's lists on disk; `now` tells the time lists are fetched at; `stopGrace`
    /// is how long a mutation under way at shutdown may go on; `rules` check writes.
    public init(
        source: any Source,
        idField: String = Repository.defaultIDField,
        cache: (any CollectionCache)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        epoch: String = Repository.newEpoch(),
        stopGrace: Duration = Repository.defaultStopGrace,
        rules: WriteRules = WriteRules(),
        logger: Logger
    ) {
        self.epoch = epoch
        self.stopGrace = stopGrace
        let state = RepositoryState(source: source, idField: idField)
        self.core = Locked(Core(state: state, rules: rules))
        self.cache = cache
        self.now = now
        self.logger = logger
        let reads = Locked(Reads(state))
        self.reads = reads
        self.queue = MutationQueue { reason in .failure(RepositoryError(.cancelled, message: reason, state: reads.withLock { $0.latest })) }
    }

    // MARK: Running

    /// How long a mutation under way at shutdown may go on before it is cancelled: with depotd's server given 5 s to
    /// answer, within systemd's 15 s TimeoutStopSec.
    public static let defaultStopGrace: Duration = .seconds(8)

    /// Runs the mutations in their turns, and the source's writes of optimistic ones in the write lane, until a
    /// graceful shutdown, `stop()` or cancellation: the repository's long-lived work, a service of its owner's tree (as
    /// postgres-nio's client is). depotd starts it after the cache and before the server, so it stops after the server
    /// has answered what it could and before the cache closes. Nothing submitted runs until this does.
    ///
    /// At a graceful shutdown the mutation under way, and the write the source is making, have `stopGrace` to finish;
    /// then they are cancelled — a source call ends; the cache keeps what it held, or the whole change once the source
    /// confirmed it — and this returns. Mutations waiting for their turn, writes not yet begun, and anything submitted
    /// later fail with `cancelled` at once.
    public func run() async {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { [cacheLane] in await cacheLane.run() }
                await withDiscardingTaskGroup { group in
                    let clock = ContinuousClock()
                    let graceOver: @Sendable () -> Void = { [logger, stopGrace] in
                        logger.warning("stopping: the change under way did not finish within \(stopGrace) of the shutdown; cancelled")
                    }
                    group.addTask { [lane, queue, stopGrace] in
                        await lane.run(
                            perform: { make in await queue.perform({ await make() }, grace: stopGrace, on: clock, graceOver: graceOver) },
                            stopping: { queue.stopping.isResolved })
                    }
                    await queue.run(grace: stopGrace, on: clock, graceOver: graceOver)
                    lane.close()
                }
                // The writes are made and confirmed: the cache takes what was queued for it, then the lane ends.
                cacheLane.close()
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Ends `run` as a graceful shutdown does: nothing more is accepted, waiting mutations fail, the one under way
    /// and the write the source is making have their grace.
    public func stop() {
        if queue.isBusy || pendingWrites > 0 {
            logger.info("stopping: waiting up to \(stopGrace) for the change under way")
        }
        queue.stop()
    }

    /// A new epoch: 16 random hexadecimal digits.
    public static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next()
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // MARK: Reads

    /// Where the items come from.
    public var source: any Source {
        reads.withLock { $0.source }
    }

    /// The member each item's id is read from.
    public var idField: String {
        reads.withLock { $0.idField }
    }

    /// The state published last.
    public var current: PublishedState {
        reads.withLock { $0.latest }
    }

    /// The version the source gave with the items it holds (an ETag, say); nil when there is none.
    public var sourceVersion: SourceVersion? {
        reads.withLock { $0.version }
    }

    /// The item `id` of the current success state; nil when there is none.
    public func item(id: String) -> Item? {
        current.state.items?.item(id: id)
    }

    /// How many optimistic writes are shown that the source has not confirmed yet.
    public var pendingWrites: Int {
        reads.withLock { $0.pending }
    }

    /// The rules writes are checked by.
    public var writeRules: WriteRules {
        get { core.withLock { $0.rules } }
        set { core.withLock { $0.rules = newValue } }
    }

    /// Adds an observer; it receives the current state at once, then every state published after it.
    public func addObserver(_ observer: any StateObserver) {
        core.withLock { core in
            observer.stateDidChange(to: core.state.latest)
            core.observers.append(observer)
        }
    }

    /// Adds an observer of the source's activity: called after every fetch with its outcome, and when the items are
    /// dropped or the source replaced, on the task of the mutation that did it (so it must return quickly).
    public func addActivityObserver(_ observer: @escaping @Sendable (SourceActivity) -> Void) {
        core.withLock { $0.activityObservers.append(observer) }
    }

    // MARK: Mutations

    /// Loads as `strategy` says (see `RetrievalStrategy`); from the source, that is: publishes loading, asks
    /// the source, then publishes success(items) or failure(loadFailed), and keeps the list in the cache.
    ///
    /// When items are held and the source gave a version with them, the source is asked only for changes
    /// since that version; if it answers unchanged, success is published again with the same items.
    ///
    /// A load submitted while the last submitted mutation is a load that has not finished, or a refresh that has not
    /// started, joins it, unless `requester` queued something before: one source call, and every caller gets the same
    /// result — the load's, even when it joined a refresh, which it takes over (a refresh after a wipe would load
    /// nothing). It queues after a refresh under way. `fastestAvailable` with a success in memory answers at once, taking no turn,
    /// unless `requester` has mutations waiting (its answer then comes after theirs, in its order).
    @discardableResult
    public func load(strategy: RetrievalStrategy = .defaultForLoad, by requester: Requester = .daemon) -> Mutation<MutationResult> {
        if strategy == .fastestAvailable, case let held = current, case .success = held.state, !queue.hasQueued(from: requester) {
            return .finished(with: .success(held))
        }
        return queue.submit(.queuedOrRunning, doing: .load, from: requester) { [self] in
            await exclusively { await performLoad(strategy) }
        }
    }

    /// A load for a source known to have changed just now (a scripted source's next step): unlike `load`, it never
    /// joins a load already under way, which may have read the source before the change.
    @discardableResult
    public func loadAfterChange(strategy: RetrievalStrategy = .defaultForLoad) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            await exclusively { await performLoad(strategy) }
        }
    }

    /// Brings the items up to date after a source with a change log said it changed (or after its connection came
    /// back): asks only for what changed since the version held and publishes one new success state when something
    /// did, or when the items held were marked stale; otherwise publishes nothing. Never publishes loading.
    ///
    /// With no items held from the source (idle after a wipe, a failure), does nothing: a wipe stays until someone
    /// loads. When the source fails, the items held are marked stale (see `markStale`) and the failure comes back.
    /// `revision`, when the wake-up named one: nothing is asked if the items held reached it by their turn.
    @discardableResult
    public func follow(through revision: Int64? = nil) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            await exclusively { await performFollow(through: revision) }
        }
    }

    /// Marks the items held stale, because the source can no longer be asked (`reason`: its connection is lost):
    /// subscribers see the same items with `stale` true, until `follow` or a load brings fresh ones. Does nothing
    /// when no items are held, or they are already stale.
    @discardableResult
    public func markStale(because reason: String) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            await exclusively { .success(publishStale(because: reason) ?? current) }
        }
    }

    /// Switches to another source and id field, then loads from it: the items of the old source are replaced
    /// by the new one's (or by a failure). Runs in its turn, like every mutation.
    @discardableResult
    public func replaceSource(_ source: any Source, idField: String) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            await exclusively {
                _ = transition { state, _ in (state.replaceSource(source, idField: idField), []) }
                tellActivity(.reset)
                logger.info("now serving \(source.description)", metadata: ["source": "\(source.description)"])
                return await performLoad(.defaultForLoad)
            }
        }
    }

    /// Removes the item `id` from the source, and publishes what the source holds after it.
    ///
    /// - Not optimistic: publishes loading, deletes, publishes success(list).
    /// - Optimistic: publishes success(current items without `id`) at once, pending until the source answers.
    /// - When there are no items in memory, or `id` is not among them, subscribers have nothing to see change:
    ///   nothing is published before the source answers, and a refusal (notFound, most often) publishes nothing.
    /// - `ifMatch`: only while the item's etag is that one; else a conflict, and nothing changes.
    /// - The list published after the delete is the one the source gave with it, one it is asked for again, or the
    ///   items held without `id` (the source said nothing more, or a relist failed: the removal stands, and a warning
    ///   says so).
    /// - When the source refuses a removal of an item shown, publishes failure(changeFailed or notFound) and then
    ///   the items as the source holds them, with any other pending write: the rollback every subscriber sees.
    /// The cache follows with one row dropped, or the whole list saved when the source changed in other ways too.
    @discardableResult
    public func remove(
        id: String, optimistic: Bool = false, ifMatch etag: String? = nil, by requester: Requester = .daemon
    ) -> Mutation<MutationResult> {
        let change = ItemChange.remove(id, etag.map { .ifMatch($0) } ?? .none)
        return queue.submit(from: requester, refused: { reason in .failure(self.cancelled(reason)) }) { [self] mutation in
            await write([change], optimistic: optimistic, showsLoading: true) { mutation.finish(with: $0.map(\.state)) }
        }
    }

    /// Puts, patches and removes items, in order, all or none: one write to the source and one state published (see
    /// `WriteOutcome`). Optimistic: shown at once, pending until the source answers. A change that cannot be made —
    /// its precondition, a missing item, an invalid item — fails them all, with its index, and nothing changes; a
    /// refusal by the source rolls back this write alone.
    ///
    /// With no items held (idle, a failed load), the items are loaded first, as `load` does: a write is checked
    /// against them.
    @discardableResult
    public func apply(_ changes: [ItemChange], optimistic: Bool = false, by requester: Requester = .daemon) -> Mutation<WriteResult> {
        queue.submit(from: requester, refused: { reason in .failure(self.cancelled(reason)) }) { [self] mutation in
            await write(changes, optimistic: optimistic, showsLoading: false) { mutation.finish(with: $0) }
        }
    }

    /// Publishes idle and drops the items held in memory and in the cache.
    @discardableResult
    public func wipe(by requester: Requester = .daemon) -> Mutation<MutationResult> {
        queue.submit(.never, from: requester) { [self] in
            await exclusively {
                let published = publishingIfAny { $0.wipe() } ?? current
                tellActivity(.reset)
                logger.info("wiped", metadata: ["seq": "\(published.seq)"])
                if let problem = await cacheChange("clear", supersedingKept: true, { try await $0.clear() }) {
                    return .failure(RepositoryError(.storageFailed, message: "wiped in memory, but \(problem)", state: published))
                }
                return .success(published)
            }
        }
    }

    /// Drops the mutations `requester` queued and that have not started (its connection closed): each ends with a
    /// `cancelled` failure and never runs. A load another requester joined still runs. Returns how many were dropped.
    @discardableResult
    public func dropQueued(by requester: Requester) -> Int {
        let dropped = queue.withdraw(requester, reason: "not run: \(requester) closed before its turn came")
        if dropped > 0 {
            logger.info("dropped \(dropped) queued mutation\(dropped == 1 ? "" : "s") of \(requester), which closed before their turn")
        }
        return dropped
    }

    /// How the source's calls have gone: counts, failures, durations.
    public var sourceCallStatistics: SourceCallStatistics {
        sourceCalls.current
    }

    /// Mutations waiting for their turn, by user (nil: depotd's own work).
    public var queuedMutations: [UInt32?: Int] {
        queue.queuedByUser
    }

    // MARK: Internals

    /// Runs `body` once no optimistic write is pending: a load, a wipe or a refresh reads or resets what the source
    /// holds, which the writes handed to the source are changing.
    func exclusively(_ body: () async -> MutationResult) async -> MutationResult {
        guard await lane.wait(until: { pendingWrites == 0 }) else { return .failure(cancelled(MutationQueue.stoppedReason)) }
        return await body()
    }

    func tellActivity(_ activity: SourceActivity) {
        for observer in core.withLock({ $0.activityObservers }) {
            observer(activity)
        }
    }

    /// The failure of a mutation that never ran, or was stopped.
    func cancelled(_ reason: String) -> RepositoryError {
        RepositoryError(.cancelled, message: reason, state: current)
    }
}
