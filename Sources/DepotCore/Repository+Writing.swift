import DepotJSON
import DepotPlatform
import Logging

/// What a write ends with once the source made it: the state published then, each change's new etag (nil for a
/// removal), and whether each created its item.
public struct WriteOutcome: Sendable, Equatable {
    public let state: PublishedState
    public let etags: [String?]
    public let created: [Bool]

    public init(state: PublishedState, etags: [String?], created: [Bool]) {
        self.state = state
        self.etags = etags
        self.created = created
    }
}

/// What every write ends with.
public typealias WriteResult = Result<WriteOutcome, RepositoryError>

/// The rules writes are checked by, and how many may be pending.
public struct WriteRules: Sendable {
    /// The item schema every item a write leaves must fit; nil for none.
    public var validator: (any ItemValidator)?
    /// The most bytes an item may have, as compact JSON (`--max-item-bytes`).
    public var maxItemBytes: Int
    /// The most optimistic writes shown before the source confirmed them; the next waits for its turn until one is
    /// confirmed or refused. It bounds what one client's flood makes the others wait for, and the memory pending
    /// writes hold.
    public var maxPendingWrites: Int
    /// How often a change made without a precondition (a patch, a put, a removal) is made again when the item changed
    /// at the source meanwhile, before it fails with a conflict.
    public var patchRetries: Int

    public init(validator: (any ItemValidator)? = nil, maxItemBytes: Int = 1 << 20, maxPendingWrites: Int = 64, patchRetries: Int = 3) {
        self.validator = validator
        self.maxItemBytes = maxItemBytes
        self.maxPendingWrites = maxPendingWrites
        self.patchRetries = patchRetries
    }

    /// The most bytes an item may have by default: 1 MiB.
    public static let defaultMaxItemBytes = 1 << 20
}

/// Writes: each checked against the items shown in its turn, then shown and handed to the write lane (optimistic), or
/// made at once with nothing pending (not optimistic); the source's answer confirms or refuses it.
extension Repository {
    /// How a write goes on after its turn.
    private enum Plan {
        /// It cannot be made; nothing changes.
        case rejected(ChangeResolver.Rejection)
        /// Shown, pending as `number`: the lane asks the source.
        case shown(number: Int, ChangeResolver.Resolution)
        /// Asked of the source now, shown once it answers; `loading` shown first when asked for and an item changed is shown.
        case direct(ChangeResolver.Resolution, showsLoading: Bool)
    }

    /// Runs a write in its turn; `finish` is told how it ended (at once, or when the lane has made it).
    func write(_ changes: [ItemChange], optimistic: Bool, showsLoading: Bool, finish: @escaping @Sendable (WriteResult) -> Void) async {
        let room: () -> Bool = optimistic ? { [self] in canAdmit() } : { [self] in pendingWrites == 0 }
        guard await lane.wait(until: room) else { return finish(.failure(cancelled(MutationQueue.stoppedReason))) }
        // A source that takes no writes refuses them before anything is shown or loaded.
        let source = reading { $0.source }
        guard source is any WritableSource else {
            logger.info("\(Self.describe(changes)) refused: \(source.notWritable.message)")
            return finish(.failure(RepositoryError(.changeFailed, message: source.notWritable.message, state: current)))
        }
        // A write is checked against the items: with none held they are loaded first — but for a lone removal, which
        // the source is asked for as it always was.
        let loneRemoval = changes.count == 1 && changes[0].operation == .remove && changes[0].precondition == .none
        if !loneRemoval, reading({ $0.confirmed == nil }), case .failure(let error) = await performLoad(.defaultForLoad) {
            return finish(.failure(error))
        }
        var plan = transition { state, rules -> (Plan, [PublishedState]) in
            let resolver = ChangeResolver(idField: state.idField, validator: rules.validator, maxItemBytes: rules.maxItemBytes)
            let shown = state.latest.state.items ?? state.confirmed?.items ?? ItemCollection()
            switch resolver.resolve(changes, against: shown) {
            case .failure(let rejection):
                return (.rejected(rejection), [])
            case .success(let resolution):
                let visible = resolution.changes.contains { shown.contains(id: $0.id) || $0.write.item != nil }
                if optimistic, visible, let (number, published) = state.admit(resolution.writes) {
                    return (.shown(number: number, resolution), [published])
                }
                let wantsLoading = showsLoading && state.latest.state.status == .success && resolution.changes.contains { shown.contains(id: $0.id) }
                let loading = wantsLoading ? state.loading() : nil
                return (.direct(resolution, showsLoading: loading != nil), loading.map { [$0] } ?? [])
            }
        }
        if case .rejected(let rejection) = plan, rejection.kind == .notFound || rejection.kind == .conflict,
            (source as? any WritableSource)?.othersWrite == true
        {
            // The items held lag behind the source by a moment when others write to it (a fleet's other daemons, an
            // API's other users): a write is refused for what an item is only once the source has been read again — a
            // change feed's catch-up statement, a conditional GET; nothing published when nothing is new — so that what
            // it answers is what the source holds. Writes still pending are made (or refused) first, as before a load:
            // the source is read after them, and this write is ordered after them.
            if pendingWrites > 0 {
                logger.debug("\(Self.describe(changes)) refused from the items held; reading the change log once the pending writes are made")
            }
            guard await lane.wait(until: { [self] in pendingWrites == 0 }) else {
                return finish(.failure(cancelled(MutationQueue.stoppedReason)))
            }
            switch await resolveAgain(changes, pending: nil) {
            case .success(let resolution)?: plan = .direct(resolution, showsLoading: false)
            case .failure(let rejection)?: plan = .rejected(rejection)
            case nil:
                // The source cannot be read now: what it holds is not known, so neither is the refusal.
                let message = "could not \(Self.describe(changes)): \(source.description) cannot be read now to check it; try again"
                plan = .rejected(ChangeResolver.Rejection(kind: .changeFailed, message: message, change: rejection.change))
            }
        }
        switch plan {
        case .rejected(let rejection):
            logger.info("\(Self.describe(changes)) refused: \(rejection.message)")
            finish(.failure(RepositoryError(rejection.kind, message: rejection.message, state: current, change: rejection.change)))
        case .shown(let number, let resolution):
            logger.debug("\(Self.describe(changes)) shown, pending as write \(number)")
            lane.hand(
                WriteLane.Work(
                    make: { [self] in await make(resolution, of: changes, pending: number, showedLoading: false, finish: finish) },
                    drop: { [self] reason in
                        let state = publishingEach { $0.refuseWrite(number, failure: StateError(.cancelled, message: reason)) }
                        finish(.failure(RepositoryError(.cancelled, message: reason, state: state)))
                    }))
        case .direct(let resolution, let showedLoading):
            await make(resolution, of: changes, pending: nil, showedLoading: showedLoading, finish: finish)
        }
    }

    /// Whether another optimistic write may be shown: fewer than the bound are pending.
    private func canAdmit() -> Bool {
        core.withLock { $0.state.pending.count < $0.rules.maxPendingWrites }
    }

    /// Asks the source to make `resolution` (pending write `number`, or one not shown), then publishes what it holds and
    /// keeps it in the cache; or, when it refuses, rolls this write back alone. A change made without a precondition
    /// (a patch, a put, a removal) whose item changed at the source meanwhile is made again from the item there, a few
    /// times.
    private func make(
        _ resolution: ChangeResolver.Resolution, of changes: [ItemChange], pending number: Int?, showedLoading: Bool,
        finish: @Sendable (WriteResult) -> Void
    ) async {
        var resolution = resolution
        var attempt = 0
        while true {
            let (source, held) = reading { state in
                (state.source, state.confirmed.map { HeldItems(items: $0.items, version: $0.version, idField: state.idField) })
            }
            let kind: WritableKeyPath<SourceCallStatistics, SourceCallStatistics.Calls> =
                resolution.writes.allSatisfy { $0.item == nil } ? \.deletes : \.writes
            do {
                let result = try await sourceCalls.time(kind) { try await source.writeIfWritable(resolution.changes, held: held) }
                return finish(await confirm(resolution, of: changes, result, held: held, pending: number))
            } catch let error as SourceError {
                attempt += 1
                guard let conflict = error.conflict, attempt <= writeRules.patchRetries, Self.isUnconditional(changes, at: conflict.index) else {
                    if error.kind == .conflict { refresh(.writeConflict) }
                    return finish(.failure(refuse(changes, error, pending: number, showedLoading: showedLoading)))
                }
                logger.info(
                    "item \"\(changes[conflict.index].id)\" changed at the source before its \(changes[conflict.index].operationName) was made; making it again"
                )
                guard let again = await resolveAgain(changes, pending: number) else {
                    return finish(.failure(refuse(changes, error, pending: number, showedLoading: showedLoading)))
                }
                if case .failure(let rejection) = again {
                    return finish(.failure(refuse(changes, rejection, pending: number, showedLoading: showedLoading)))
                }
                if case .success(let resolved) = again { resolution = resolved }
            } catch {
                return finish(.failure(refuse(changes, error, pending: number, showedLoading: showedLoading)))
            }
        }
    }

    /// Whether the change at `index` has no precondition of the client's: its conflict at the source only says the
    /// item changed there since depotd saw it, so it is made again from what the source holds.
    private static func isUnconditional(_ changes: [ItemChange], at index: Int) -> Bool {
        changes.indices.contains(index) && changes[index].precondition == .none
    }

    /// Reads what the source holds now (a patched item changed there), then resolves `changes` against it: nil when the
    /// source cannot be read.
    private func resolveAgain(_ changes: [ItemChange], pending number: Int?) async -> Result<ChangeResolver.Resolution, ChangeResolver.Rejection>? {
        let (known, held) = reading { ($0.confirmed?.version, $0.confirmed?.items) }
        switch await fetchCollection(ifChangedSince: known, held: held) {
        case .failure:
            return nil
        case .success(.unchanged):
            break
        case .success(.items(let items, let version, let changes)):
            let published = publishing { $0.confirm(items, provenance: .source(at: now(), revision: version?.revision), version: version) }
            logger.info("read \(items.count) items from \(source.description) again", metadata: ["seq": "\(published.seq)"])
            keep(items, fetchedAt: now(), version: version, changes: changes, from: known)
        }
        return transition { state, rules in
            let resolver = ChangeResolver(idField: state.idField, validator: rules.validator, maxItemBytes: rules.maxItemBytes)
            // A write in the lane is the oldest pending: what it is checked against is what the source holds.
            let result = resolver.resolve(changes, against: state.confirmed?.items ?? ItemCollection())
            guard let number, case .success(let resolution) = result, let published = state.rewrite(number, as: resolution.writes) else {
                return (result, [])
            }
            return (result, [published])
        }
    }

    /// The source made the write: what it holds now is published (with the other pending writes on it) and kept.
    private func confirm(
        _ resolution: ChangeResolver.Resolution, of changes: [ItemChange], _ result: SourceWriteResult, held: HeldItems?, pending number: Int?
    ) async -> WriteResult {
        let previous = held?.items
        let placement = reading { $0.source.newItemPlacement }
        var confirmed: (items: ItemCollection, provenance: Provenance, version: SourceVersion?)?
        var problem: String?
        switch result.outcome {
        case .remaining(let items, let version):
            confirmed = (items, .source(at: now(), revision: version?.revision), version)
        case .applied:
            break
        case .relist, .changed:
            // After `.changed`, only what changed since the version held is asked for, applied to the items held.
            let known = result.outcome == .changed ? held?.version : nil
            switch await fetchCollection(ifChangedSince: known, held: previous) {
            case .success(.items(let items, let version, _)):
                confirmed = (items, .source(at: now(), revision: version?.revision), version)
            case .success(.unchanged):
                // The source says nothing changed since the version held, although it made the write: a log that missed
                // it. Keep what is held with the write; the next load corrects anything else.
                problem = "the source's change log does not show it"
            case .failure(let error):
                problem = "reading the source again failed: \(error.message)"
            }
        }
        let what = Self.describe(changes)
        guard let previous = previous ?? confirmed?.items else {
            // Nothing held, and the source said nothing more: nothing to show.
            logger.info("\(what): done")
            return .success(WriteOutcome(state: current, etags: resolution.etags, created: result.created ?? resolution.created))
        }
        let (items, provenance, version) =
            confirmed ?? (
                previous.applying(resolution.writes, placement: placement), reading { $0.confirmed?.provenance.derived } ?? .source(at: now()), nil
            )
        let published =
            if let number {
                publishingIfAny { $0.confirmWrite(number, holding: items, provenance: provenance, version: version) } ?? current
            } else {
                publishing { $0.confirm(items, provenance: provenance, version: version) }
            }
        if let problem {
            logger.warning("\(what): done, but \(problem); keeping the items held with the change", metadata: ["seq": "\(published.seq)"])
        } else {
            logger.info("\(what): done; \(items.count) items", metadata: ["seq": "\(published.seq)"])
        }
        let outcome = WriteOutcome(state: published, etags: resolution.etags, created: result.created ?? resolution.created)
        if let problem = await keepWrite(
            resolution.writes, items: items, from: previous, previousVersion: held?.version, version: version, confirmed: confirmed != nil)
        {
            return .failure(RepositoryError(.storageFailed, message: "\(what): made at the source and in memory, but \(problem)", state: published))
        }
        return .success(outcome)
    }

    /// The source refused the write (or it could not be resolved again): it is rolled back — the failure naming it, then
    /// the items with every other pending write — if anything of it was shown; otherwise nothing is published.
    private func refuse(_ changes: [ItemChange], _ error: any Error, pending number: Int?, showedLoading: Bool) -> RepositoryError {
        let (kind, message, change) = Self.failure(of: changes, error)
        let failure = StateError(kind, message: message)
        let state: PublishedState
        if let number {
            state = publishingEach { $0.refuseWrite(number, failure: failure) }
        } else if showedLoading {
            state = publishingEach { $0.refuseShown(failure) }
        } else {
            state = current
        }
        logger.warning(
            "\(Self.describe(changes)) failed\(number != nil || showedLoading ? ", rolled back" : ""): \(message)", metadata: ["seq": "\(state.seq)"])
        return RepositoryError(kind, message: message, state: state, change: change)
    }

    /// The failure a refused write ends with: its kind, its message, and the change at fault.
    private static func failure(of changes: [ItemChange], _ error: any Error) -> (StateError.Kind, String, FailedChange?) {
        if let rejection = error as? ChangeResolver.Rejection {
            return (rejection.kind, rejection.message, rejection.change)
        }
        guard let sourceError = error as? SourceError else {
            return (.changeFailed, "could not \(describe(changes)): \(error)", nil)
        }
        switch sourceError.kind {
        case .notFound:
            let id = changes.count == 1 ? changes[0].id : changes.first { $0.operation == .remove }?.id ?? changes[0].id
            let index = changes.firstIndex { $0.id == id } ?? 0
            return (.notFound, sourceError.message, FailedChange(index: index, id: id, current: .absent))
        case .conflict:
            let index = sourceError.conflict?.index ?? 0
            let current: FailedChange.CurrentItem = sourceError.conflict.map { $0.current.map { .item($0) } ?? .absent } ?? .unknown
            return (
                .conflict, sourceError.message,
                changes.indices.contains(index) ? FailedChange(index: index, id: changes[index].id, current: current) : nil
            )
        case .unavailable, .invalidData, .refused, .unsupported:
            return (.changeFailed, "could not \(describe(changes)): \(sourceError.message)", nil)
        case .outcomeUnknown:
            return (
                .outcomeUnknown,
                "\(describe(changes)) may or may not be in the source: \(sourceError.message); depotd reads it again: get the item to see which",
                nil
            )
        }
    }

    /// `remove "25"`, `put "a"`, `patch "a"`, or `apply 3 changes`: the write in words, for logs and messages.
    static func describe(_ changes: [ItemChange]) -> String {
        guard changes.count == 1 else { return "apply \(changes.count) changes" }
        return "\(changes[0].operationName) \"\(changes[0].id)\""
    }
}
