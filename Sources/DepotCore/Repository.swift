import DepotJSON
import DepotPlatform
public import Logging
public import ServiceLifecycle

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
import Foundation
#endif

/// The one shared collection: loads it from a source, keeps it in memory, and publishes every change
/// of state, numbered by `seq`, to its observers.
///
/// Mutations (`load`, `remove`, `wipe`) are accepted synchronously and run one at a time: each requester's in
/// its order, requesters in a fair turn (`MutationQueue`); each returns a `Mutation` whose result is awaited
/// separately. Reads (`current`, `item(id:)`) answer at once
/// from the last published state and never wait behind a source call.
///
/// With a `CollectionCache`, every list the source gives is kept on disk, removals and wipes keep it in step,
/// and a load's `RetrievalStrategy` decides when the cached list stands in for the source.
public final class Repository: Service, Sendable {
    /// The id member used when none is configured.
    public static let defaultIDField = "id"

    let logger: Logger
    let queue: MutationQueue
    private let sourceCalls = SourceCallRecorder()
    /// The source and the id field; replaced only by the `replaceSource` mutation, read by mutations.
    private let binding: Locked<(source: any Source, idField: String)>

    /// Serialises publishing with adding observers, so every observer sees one gap-free, ordered sequence.
    private let publication: Locked<[any StateObserver]>
    /// What reads see; separate from `publication` so that reads never wait while observers run.
    private let latest: Locked<PublishedState>
    /// The version the source gave with the items of the current success state; nil when it gave none or
    /// the items in memory are no longer exactly what it sent. Changed only by mutations.
    let version = Locked<SourceVersion?>(nil)
    /// How the source has answered lately; updated around every fetch.
    let health = Locked(SourceHealth())
    /// Told of every fetch's outcome and of every reset, in order, by the mutation that caused it.
    let activityObservers = Locked<[@Sendable (SourceActivity) -> Void]>([])
    private let cache: (any CollectionCache)?
    let now: @Sendable () -> Date
    /// Names this repository's run of seqs: seqs start again at 0 with every repository (every daemon run), so
    /// a seq means something only with its epoch. Opaque; new for every repository unless given.
    public let epoch: String
    /// How long a mutation under way at shutdown may go on before it is cancelled.
    let stopGrace: Duration

    /// `cache`, when given, keeps the source's lists on disk; `now` tells the time lists are fetched at; `stopGrace`
    /// is how long a mutation under way at shutdown may go on.
    public init(
        source: any Source,
        idField: String = Repository.defaultIDField,
        cache: (any CollectionCache)? = nil,
        now: @escaping @Sendable () -> Date = { Date() },
        epoch: String = Repository.newEpoch(),
        stopGrace: Duration = Repository.defaultStopGrace,
        logger: Logger
    ) {
        self.epoch = epoch
        self.stopGrace = stopGrace
        self.binding = Locked((source, idField))
        self.cache = cache
        self.now = now
        self.logger = logger
        self.publication = Locked([])
        let latest = Locked(PublishedState(seq: 0, state: .idle))
        self.latest = latest
        self.queue = MutationQueue { reason in .failure(RepositoryError(.cancelled, message: reason, state: latest.withLock { $0 })) }
    }

    // MARK: Running

    /// How long a mutation under way at shutdown may go on before it is cancelled: with depotd's server given 5 s to
    /// answer, within systemd's 15 s TimeoutStopSec.
    public static let defaultStopGrace: Duration = .seconds(8)

    /// Runs the mutations in their turns, one at a time, until a graceful shutdown, `stop()` or cancellation: the
    /// repository's one long-lived piece of work, a service of its owner's tree (as postgres-nio's client is). depotd
    /// starts it after the cache and before the server, so it stops after the server has answered what it could and
    /// before the cache closes. Nothing submitted runs until this does.
    ///
    /// At a graceful shutdown the mutation under way has `stopGrace` to finish; then it is cancelled — its source call
    /// ends; the cache keeps what it held, or the whole change once the source confirmed it — and this returns.
    /// Mutations waiting for their turn, and any submitted later, fail with `cancelled` at once.
    public func run() async {
        await withGracefulShutdownHandler {
            await queue.run(grace: stopGrace, on: ContinuousClock()) { [logger, stopGrace] in
                logger.warning("stopping: the change under way did not finish within \(stopGrace) of the shutdown; cancelled")
            }
        } onGracefulShutdown: {
            self.stop()
        }
    }

    /// Ends `run` as a graceful shutdown does: nothing more is accepted, waiting mutations fail, the one under way
    /// has its grace.
    public func stop() {
        if queue.isBusy {
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
        binding.withLock { $0.source }
    }

    /// The member each item's id is read from.
    public var idField: String {
        binding.withLock { $0.idField }
    }

    /// The state published last.
    public var current: PublishedState {
        latest.withLock { $0 }
    }

    /// The version the source gave with the items held now (an ETag, say); nil when there is none.
    public var sourceVersion: SourceVersion? {
        version.withLock { $0 }
    }

    /// The item `id` of the current success state; nil when there is none.
    public func item(id: String) -> Item? {
        current.state.items?.item(id: id)
    }

    /// Adds an observer; it receives the current state at once, then every state published after it.
    public func addObserver(_ observer: any StateObserver) {
        publication.withLock { observers in
            observer.stateDidChange(to: current)
            observers.append(observer)
        }
    }

    // MARK: Mutations

    /// Loads as `strategy` says (see `RetrievalStrategy`); from the source, that is: publishes loading, asks
    /// the source, then publishes success(items) or failure(loadFailed), and keeps the list in the cache.
    ///
    /// When items are held and the source gave a version with them, the source is asked only for changes
    /// since that version; if it answers unchanged, success is published again with the same items.
    ///
    /// A load submitted while the last submitted mutation is a load or a refresh that has not finished joins it,
    /// unless `requester` queued something before: one source call, and every caller gets the same result (the
    /// refresh's, when it joined one). `fastestAvailable` with a success in memory answers at once, taking no turn,
    /// unless `requester` has mutations waiting (its answer then comes after theirs, in its order).
    @discardableResult
    public func load(strategy: RetrievalStrategy = .defaultForLoad, by requester: Requester = .daemon) -> Mutation<MutationResult> {
        if strategy == .fastestAvailable, case let held = current, case .success = held.state, !queue.hasQueued(from: requester) {
            return .finished(with: .success(held))
        }
        return queue.submit(.queuedOrRunning, from: requester) { [self] in
            await performLoad(strategy)
        }
    }

    /// A load for a source known to have changed just now (a scripted source's next step): unlike `load`, it never
    /// joins a load already under way, which may have read the source before the change.
    @discardableResult
    public func loadAfterChange(strategy: RetrievalStrategy = .defaultForLoad) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            await performLoad(strategy)
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
            let held = current
            guard let items = held.state.items, let provenance = held.state.provenance else { return .success(held) }
            let known = version.withLock { $0 }
            // A wake-up for a change a mutation ahead of this one already brought (a removal's own): nothing to ask.
            if let revision, let reached = known?.revision, reached >= revision, !provenance.stale { return .success(held) }
            switch await fetchCollection(ifChangedSince: known, held: items) {
            case .success(.items(let newItems, let newVersion, let changes)):
                if changes == nil {  // A full listing: the source could not say what changed.
                    logger.notice(
                        "\(source.description) could not say what changed since \(known?.description ?? "the items held"); reloaded in full")
                }
                return await publishFetched(newItems, version: newVersion, changes: changes)
            case .success(.unchanged):
                guard provenance.stale else { return .success(held) }
                let published = await publishConfirmed(items, version: known)
                logger.info(
                    "\(source.description) is reachable again and unchanged; \(items.count) items no longer stale",
                    metadata: ["seq": "\(published.seq)"])
                return .success(published)
            case .failure(let error):
                let published = publishStale(because: error.message) ?? held
                return .failure(RepositoryError(error.kind, message: error.message, state: published))
            }
        }
    }

    /// Marks the items held stale, because the source can no longer be asked (`reason`: its connection is lost):
    /// subscribers see the same items with `stale` true, until `follow` or a load brings fresh ones. Does nothing
    /// when no items are held, or they are already stale.
    @discardableResult
    public func markStale(because reason: String) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            .success(publishStale(because: reason) ?? current)
        }
    }

    /// Publishes the items held again, marked stale; nil when there are none or they already are.
    func publishStale(because reason: String) -> PublishedState? {
        let held = current.state
        guard let items = held.items, let provenance = held.provenance, !provenance.stale else { return nil }
        let published = publish(.success(items, provenance.markedStale(because: reason)))
        logger.warning("serving \(items.count) items marked stale: \(reason)", metadata: ["seq": "\(published.seq)"])
        return published
    }

    /// Switches to another source and id field, then loads from it: the items of the old source are replaced
    /// by the new one's (or by a failure). Runs in its turn, like every mutation.
    @discardableResult
    public func replaceSource(_ source: any Source, idField: String) -> Mutation<MutationResult> {
        queue.submit(.never, from: .daemon) { [self] in
            binding.withLock { $0 = (source, idField) }
            version.withLock { $0 = nil }
            health.withLock { $0 = SourceHealth() }
            tellActivity(.reset)
            logger.info("now serving \(source.description)", metadata: ["source": "\(source.description)"])
            return await performLoad(.defaultForLoad)
        }
    }

    /// Removes the item `id` from the source, and publishes what the source holds after it.
    ///
    /// - Not optimistic: publishes loading, deletes, publishes success(list).
    /// - Optimistic: publishes success(current items without `id`) at once, then deletes.
    /// - When there are no items in memory, or `id` is not among them, subscribers have nothing to see change:
    ///   nothing is published before the source answers, and a refusal (notFound, most often) publishes nothing.
    /// - The list published after the delete is the one the source gave with it (`SourceDeletion.remaining`),
    ///   one it is asked for again (`.relist`), or the items held without `id` (`.removed`, or a relist that
    ///   failed: the removal stands, and a warning says so).
    /// - When the source refuses a removal of an item shown, publishes failure(removeFailed or notFound) and then
    ///   the state from before the removal again: the rollback every subscriber sees.
    /// The cache follows with one row dropped, or the whole list saved when the source changed in other ways too.
    @discardableResult
    public func remove(id: String, optimistic: Bool = false, by requester: Requester = .daemon) -> Mutation<MutationResult> {
        queue.submit(.never, from: requester) { [self] in
            let before = current.state
            // An id the items held do not show: subscribers see nothing change unless the source removes it, so
            // nothing is published before the source answers, and a refusal publishes nothing at all.
            let shown = before.items?.contains(id: id) ?? false
            if optimistic {
                if let items = before.items, let provenance = before.provenance, shown {
                    publish(.success(items.removing(id: id), provenance.derived))
                }
            } else if shown {
                publish(.loading)
            }
            let deletion: SourceDeletion
            do {
                let (source, idField) = binding.withLock { $0 }
                let held = before.items.map { HeldItems(items: $0, version: version.withLock { $0 }, idField: idField) }
                deletion = try await sourceCalls.time(\.deletes) { try await source.deleteItem(id: id, held: held) }
            } catch {
                guard shown else { return refusedUnseen(id, error: error) }
                return rollBack(to: before, removing: id, error: error)
            }
            switch deletion {
            case .remaining(let items, let newVersion):
                return await publishRemaining(items, version: newVersion, removing: id, from: before.items)
            case .removed:
                return await publishHeld(before, without: id, problem: nil)
            case .relist, .changed:
                // After `.changed`, only what changed since the version held is asked for, applied to the items held
                // before the removal (an optimistic removal's state is derived, not the source's).
                let known = deletion == .changed ? version.withLock { $0 } : nil
                switch await fetchCollection(ifChangedSince: known, held: before.items) {
                case .success(.items(let items, let newVersion, _)):
                    return await publishRemaining(items, version: newVersion, removing: id, from: before.items)
                case .success(.unchanged):
                    // The source says nothing changed since the version held, although it removed `id`: a log that
                    // missed the removal. Keep what is held without it; the next load corrects anything else.
                    return await publishHeld(before, without: id, problem: "the source's change log does not show the removal")
                case .failure(let error):
                    return await publishHeld(before, without: id, problem: "the refetch failed: \(error.message)")
                }
            }
        }
    }

    /// A refused removal: failure, then the state from before it again.
    private func rollBack(to before: LoadingState, removing id: String, error: any Error) -> MutationResult {
        let failure = Self.removalFailure(id: id, error: error)
        publish(.failure(failure))
        let rolledBack = publish(before)
        logger.warning("remove \(id) failed, rolled back: \(failure.message)", metadata: ["seq": "\(rolledBack.seq)"])
        return .failure(RepositoryError(failure.kind, message: failure.message, state: rolledBack))
    }

    /// A refused removal of an id the items held did not show: nothing was published, and nothing is.
    private func refusedUnseen(_ id: String, error: any Error) -> MutationResult {
        let failure = Self.removalFailure(id: id, error: error)
        let state = current
        logger.warning(
            "remove \(id) failed, nothing published (it is not among the items held): \(failure.message)", metadata: ["seq": "\(state.seq)"])
        return .failure(RepositoryError(failure.kind, message: failure.message, state: state))
    }

    /// The source's list after removing `id`, published as the source's. When it is the list held before
    /// without `id` — the common case — the cache drops that one row; otherwise the source changed in other
    /// ways too, and the cache takes the whole list.
    private func publishRemaining(
        _ items: ItemCollection,
        version newVersion: SourceVersion?,
        removing id: String,
        from previous: ItemCollection?
    ) async -> MutationResult {
        version.withLock { $0 = newVersion }
        let fetchedAt = now()
        // The source's list is the one held less `id`, as the optimistic state's is: publish that very collection,
        // so the fan-out knows in O(1) that the items did not change (only their provenance did).
        var items = items
        if let previous, let optimistic = current.state.items, optimistic.removedID(from: previous) == id, items.removedID(from: previous) == id {
            items = optimistic
        }
        let published = publish(.success(items, .source(at: fetchedAt, revision: newVersion?.revision)))
        logger.info("removed \(id); \(items.count) items remain", metadata: ["seq": "\(published.seq)"])
        if let previous, items.isRemoval(of: id, from: previous) {
            let problem = await cacheChange("drop \(id) from") { try await $0.remove(id: id, fetchedAt: fetchedAt, version: newVersion) }
            if let problem { return Self.removedButKept(id, problem, published) }
        } else {
            await keep(items, fetchedAt: fetchedAt, version: newVersion)
        }
        return .success(published)
    }

    /// The items held before, without `id`: the source confirmed the removal but gave no list (`problem` says
    /// why, when it was asked for one and failed). With nothing held, the state from before stands.
    private func publishHeld(_ before: LoadingState, without id: String, problem: String?) async -> MutationResult {
        version.withLock { $0 = nil }
        let remaining: LoadingState =
            before.items.map { items in
                .success(items.removing(id: id), before.provenance?.derived ?? .source(at: now()))
            } ?? before
        let published = publish(remaining)
        if let problem {
            logger.warning("removed \(id), but \(problem); keeping the previous items without it", metadata: ["seq": "\(published.seq)"])
        } else {
            logger.info("removed \(id); \(remaining.items?.count ?? 0) items remain", metadata: ["seq": "\(published.seq)"])
        }
        if let problem = await cacheChange("drop \(id) from", { try await $0.remove(id: id) }) {
            return Self.removedButKept(id, problem, published)
        }
        return .success(published)
    }

    /// A removal the source confirmed and every subscriber saw, which the cache still holds.
    private static func removedButKept(_ id: String, _ problem: String, _ published: PublishedState) -> MutationResult {
        .failure(RepositoryError(.storageFailed, message: "removed \(id) from the source and in memory, but \(problem)", state: published))
    }

    /// Publishes idle and drops the items held in memory and in the cache.
    @discardableResult
    public func wipe(by requester: Requester = .daemon) -> Mutation<MutationResult> {
        queue.submit(.never, from: requester) { [self] in
            version.withLock { $0 = nil }
            let published = publish(.idle)
            tellActivity(.reset)
            logger.info("wiped", metadata: ["seq": "\(published.seq)"])
            if let problem = await cacheChange("clear", { try await $0.clear() }) {
                return .failure(RepositoryError(.storageFailed, message: "wiped in memory, but \(problem)", state: published))
            }
            return .success(published)
        }
    }

    /// Drops the mutations `requester` queued and that have not started (its connection closed): each ends with a
    /// `cancelled` failure and never runs. A load another requester joined still runs. Returns how many were dropped.
    @discardableResult
    public func dropQueued(by requester: Requester) -> Int {
        let dropped = queue.withdraw(requester)
        guard !dropped.isEmpty else { return 0 }
        let state = current
        let message = "not run: \(requester) closed before its turn came"
        for mutation in dropped {
            mutation.finish(with: .failure(RepositoryError(.cancelled, message: message, state: state)))
        }
        logger.info("dropped \(dropped.count) queued mutation\(dropped.count == 1 ? "" : "s") of \(requester), which closed before their turn")
        return dropped.count
    }

    /// How the source's calls have gone: counts, failures, durations.
    public var sourceCallStatistics: SourceCallStatistics {
        sourceCalls.current
    }

    /// Mutations waiting for their turn, by user (nil: depotd's own work).
    public var queuedMutations: [UInt32?: Int] {
        queue.queuedByUser
    }

    // MARK: Loading

    private func performLoad(_ strategy: RetrievalStrategy) async -> MutationResult {
        switch strategy {
        case .fastestAvailable:
            let held = current
            if case .success = held.state {
                return .success(held)
            }
            if let cached = await readCache() {
                return .success(publishCached(cached))
            }
            return await loadFromSource(publishingLoading: true, fallback: nil)
        case .upToDateWithFallback:
            return await loadFromSource(publishingLoading: true, fallback: .readWhenNeeded)
        case .returnMultipleTimes:
            if current.state.items == nil, let cached = await readCache() {
                publishCached(cached)
                return await loadFromSource(publishingLoading: false, fallback: .read(cached))
            }
            return await loadFromSource(publishingLoading: true, fallback: .readWhenNeeded)
        }
    }

    /// What stands in for the source when it fails.
    private enum Fallback {
        /// The cache's list, read if the source fails.
        case readWhenNeeded
        /// This list, already read from the cache.
        case read(CachedCollection)
    }

    /// Asks the source (conditionally, when items and their version are held) and publishes its answer; when
    /// it fails, publishes the fallback's list marked stale if there is one, or failure.
    private func loadFromSource(publishingLoading: Bool, fallback: Fallback?) async -> MutationResult {
        // A version describes the items in memory; without items there is nothing it could leave unchanged.
        let held = current.state.items
        let known = held == nil ? nil : version.withLock { $0 }
        if publishingLoading {
            publish(.loading)
        }
        switch await fetchCollection(ifChangedSince: known, held: held) {
        case .success(.items(let items, let newVersion, let changes)):
            return await publishFetched(items, version: newVersion, changes: changes)
        case .success(.unchanged):
            // fetchCollection answers unchanged only when it was given a version, so only when items are held.
            guard let held, let known else { preconditionFailure("unchanged without a version") }
            let published = await publishConfirmed(held, version: known)
            logger.info("\(source.description) is unchanged (\(known)); keeping \(held.count) items", metadata: ["seq": "\(published.seq)"])
            return .success(published)
        case .failure(let error):
            let standIn: CachedCollection? =
                switch fallback {
                case nil: nil
                case .readWhenNeeded?: await readCache()
                case .read(let cached)?: cached
                }
            guard let standIn else {
                version.withLock { $0 = nil }
                let published = publish(.failure(error))
                logger.error("load failed: \(error.message)", metadata: ["seq": "\(published.seq)"])
                return .failure(RepositoryError(error.kind, message: error.message, state: published))
            }
            let published = publishCached(standIn, staleBecause: error.message)
            logger.warning(
                "load failed, serving the \(standIn.items.count) cached items fetched at \(standIn.fetchedAt) instead: \(error.message)",
                metadata: ["seq": "\(published.seq)"]
            )
            return .success(published)
        }
    }

    /// A list the source just gave (whole, or as `changes` applied to the items held): published and cached.
    /// The cache follows row by row when only changes were applied (see `CollectionCache.apply`), whole otherwise.
    func publishFetched(_ items: ItemCollection, version newVersion: SourceVersion?, changes: SourceChanges?) async -> MutationResult {
        let previous = version.withLock { version in
            defer { version = newVersion }
            return version
        }
        let fetchedAt = now()
        let published = publish(.success(items, .source(at: fetchedAt, revision: newVersion?.revision)))
        guard let changes else {
            logger.info("loaded \(items.count) items from \(source.description)", metadata: ["seq": "\(published.seq)"])
            await keep(items, fetchedAt: fetchedAt, version: newVersion)
            return .success(published)
        }
        logger.info(
            "applied \(changes.count) change\(changes.count == 1 ? "" : "s") from \(source.description); \(items.count) items\(newVersion?.revision.map { " at revision \($0)" } ?? "")",
            metadata: ["seq": "\(published.seq)"])
        await keep(items, fetchedAt: fetchedAt, version: newVersion, changes: changes, from: previous)
        return .success(published)
    }

    /// The items held, which the source just said are unchanged since `known`, published again as the source's, fetched
    /// now; the cache records the new fetch time with one row, not the list.
    func publishConfirmed(_ items: ItemCollection, version known: SourceVersion?) async -> PublishedState {
        let fetchedAt = now()
        let published = publish(.success(items, .source(at: fetchedAt, revision: known?.revision)))
        await keep(items, fetchedAt: fetchedAt, version: known, changes: SourceChanges(), from: known)
        return published
    }

    @discardableResult
    private func publishCached(_ cached: CachedCollection, staleBecause reason: String? = nil) -> PublishedState {
        let stale = reason != nil
        version.withLock { $0 = cached.version }
        let provenance = Provenance(
            origin: .cache, fetchedAt: cached.fetchedAt, stale: stale, revision: cached.version?.revision, staleReason: reason)
        let published = publish(.success(cached.items, provenance))
        logger.info(
            "serving \(cached.items.count) cached items fetched at \(cached.fetchedAt)\(stale ? " (stale)" : "")",
            metadata: ["seq": "\(published.seq)"]
        )
        return published
    }

    // MARK: Cache

    /// The cache's list, if it has one for the current source and id field.
    private func readCache() async -> CachedCollection? {
        guard let cache else { return nil }
        let (source, idField) = binding.withLock { $0 }
        do {
            guard let cached = try await cache.read() else { return nil }
            guard cached.belongs(to: source.description, idField: idField) else {
                logger.info("the cache holds the list of \(cached.source) (ids from \(cached.idField)), not of \(source.description); not using it")
                return nil
            }
            return cached
        } catch {
            logger.warning("cannot read the cache, going on without it: \(error)")
            return nil
        }
    }

    /// Keeps the list the source just gave in the cache: row by row when it is `changes` applied to the list of
    /// version `previous` and the cache holds that list, whole otherwise.
    private func keep(
        _ items: ItemCollection, fetchedAt: Date, version: SourceVersion?, changes: SourceChanges? = nil, from previous: SourceVersion? = nil
    ) async {
        let (source, idField) = binding.withLock { $0 }
        let collection = CachedCollection(items: items, fetchedAt: fetchedAt, version: version, source: source.description, idField: idField)
        if let changes, changes.count <= Self.largestRowByRowChange {
            let changedIDs = changes.changed.compactMap { ItemCollection.id(of: $0, idField: idField) }
            var applied = false
            await cacheOperation("apply \(changes.count) changes to") {
                applied = try await $0.apply(to: collection, from: previous, changedIDs: changedIDs, removedIDs: changes.removed)
            }
            if applied { return }
        }
        await cacheOperation("save \(items.count) items to") { try await $0.save(collection) }
    }

    /// Past this many changes at once, the cache takes the whole list: one pass beats many lookups.
    static let largestRowByRowChange = 1000

    /// Runs `operation` on the cache, if there is one; a failure is logged, never passed on: the cache only
    /// ever helps.
    /// A change that must not be undone by a restart (a removal, a wipe): when the cache cannot take it, the cache is
    /// discarded rather than left to serve what was removed or wiped. When even that fails, the problem comes back,
    /// for the mutation to fail with: what is still on disk, and what to do.
    private func cacheChange(_ what: String, _ operation: (any CollectionCache) async throws -> Void) async -> String? {
        guard let cache else { return nil }
        do {
            try await operation(cache)
            return nil
        } catch {
            do {
                try await cache.discard()
                logger.error("cannot \(what) the cache (\(error)); its files were deleted, so they are never served")
                return nil
            } catch let discardError {
                let problem =
                    "the cache could not take it (\(error)) nor be deleted (\(discardError)): it is no longer read while depotd runs, but after a restart it would serve what it holds; make the state directory writable, then wipe or remove again"
                logger.critical("cannot \(what) the cache: \(problem)")
                return problem
            }
        }
    }

    private func cacheOperation(_ what: String, _ operation: (any CollectionCache) async throws -> Void) async {
        guard let cache else { return }
        do {
            try await operation(cache)
        } catch {
            logger.warning("cannot \(what) the cache: \(error)")
        }
    }

    // MARK: Internals

    /// Publishes `state` with the next seq to every observer, in order. Only mutations call this, one at a time.
    @discardableResult
    private func publish(_ state: LoadingState) -> PublishedState {
        publication.withLock { observers in
            let published = latest.withLock { latest in
                latest = PublishedState(seq: latest.seq + 1, state: state)
                return latest
            }
            logger.debug("published \(published.state.status.rawValue)", metadata: ["seq": "\(published.seq)"])
            for observer in observers {
                observer.stateDidChange(to: published)
            }
            return published
        }
    }

    /// What a fetch gave: the items checked into a collection (`changes` counts what was applied to the held ones
    /// when the source sent only those; nil for a whole listing), or word that the held ones are current.
    enum Fetched {
        case items(ItemCollection, version: SourceVersion?, changes: SourceChanges?)
        case unchanged
    }

    /// The source's answer as a collection (see `fetchCollection(ifChangedSince:held:)`, which records it), with the
    /// lifetime it stated and the pause a failure asked for.
    func fetchCollection(
        ifChangedSince known: SourceVersion?, held: ItemCollection?, lifetime: inout FreshnessLifetime?, retryAfter: inout Duration?
    ) async -> Result<Fetched, StateError> {
        let (source, idField) = binding.withLock { $0 }
        let values: [JSONValue]
        let newVersion: SourceVersion?
        do {
            let answer = try await sourceCalls.time(\.fetches, { try await source.fetch(ifChangedSince: known) })
            lifetime = answer.lifetime
            switch answer.listing {
            case .items(let items, let version):
                (values, newVersion) = (items, version)
            case .collection(let collection, let collectionIDField, let version) where collectionIDField == idField:
                return .success(.items(collection, version: version, changes: nil))
            case .collection(_, let collectionIDField, _):
                return .failure(
                    StateError(
                        .loadFailed,
                        message:
                            "\(source.description) read ids from \"\(collectionIDField)\", but the repository's id field is \"\(idField)\"; this is a bug in the source"
                    ))
            case .changes(let changes, let version):
                guard known != nil, let held else {
                    return .failure(
                        StateError(
                            .loadFailed,
                            message: "\(source.description) answered with changes although no version was given; this is a bug in the source"))
                }
                do {
                    return .success(.items(try held.applying(changes, idField: idField), version: version, changes: changes))
                } catch {
                    return .failure(StateError(.loadFailed, message: "\(source.description): a changed item: \(error)"))
                }
            case .unchanged where known != nil:
                return .success(.unchanged)
            case .unchanged:
                return .failure(
                    StateError(
                        .loadFailed,
                        message: "\(source.description) answered \"unchanged\" although no version was given; this is a bug in the source"
                    ))
            }
        } catch {
            retryAfter = (error as? SourceError)?.retryAfter
            return .failure(StateError(.loadFailed, message: String(describing: error)))
        }
        do {
            return .success(.items(try ItemCollection(values: values, idField: idField), version: newVersion, changes: nil))
        } catch {
            return .failure(StateError(.loadFailed, message: "\(source.description): \(error)"))
        }
    }

    private static func removalFailure(id: String, error: any Error) -> StateError {
        if let sourceError = error as? SourceError, sourceError.kind == .notFound {
            return StateError(.notFound, message: sourceError.message)
        }
        return StateError(.removeFailed, message: "could not remove \"\(id)\": \(error)")
    }
}
