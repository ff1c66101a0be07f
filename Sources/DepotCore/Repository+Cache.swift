import DepotPlatform
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The on-disk cache: read when it stands in for the source, kept in step with what the source gives and confirms.
/// It only ever helps: a read or a save that fails is logged; a change that must not be undone by a restart (a write,
/// a wipe) that it cannot take discards it instead.
extension Repository {
    /// The cache's list, if it has one for the current source and id field: as the updates queued before now left it.
    func readCache() async -> CachedCollection? {
        guard let cache else { return nil }
        await cacheLane.flush()
        let (source, idField) = reading { ($0.source, $0.idField) }
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

    /// Keeps the list the source just gave in the cache, behind the mutations (`CacheLane`): row by row when it is
    /// `changes` applied to the list of version `previous` and the cache holds that list, whole otherwise.
    func keep(
        _ items: ItemCollection, fetchedAt: Date, version: SourceVersion?, changes: SourceChanges? = nil, from previous: SourceVersion? = nil
    ) {
        guard cache != nil else { return }
        let (source, idField) = reading { ($0.source, $0.idField) }
        let collection = CachedCollection(items: items, fetchedAt: fetchedAt, version: version, source: source.description, idField: idField)
        guard let changes, changes.count <= Self.largestRowByRowChange else {
            cacheLane.keep(wholeList: true) { [self] in
                if await cacheOperation("save \(items.count) items to", { try await $0.save(collection) }) != nil {
                    logger.debug("kept \(items.count) items in the cache")
                }
            }
            return
        }
        cacheLane.keep(wholeList: false) { [self] in
            let changedIDs = changes.changed.compactMap { ItemCollection.id(of: $0, idField: idField) }
            let applied = await cacheOperation("apply \(changes.count) changes to") {
                try await $0.apply(to: collection, from: previous, changedIDs: changedIDs, removedIDs: changes.removed)
            }
            if applied == true { return }
            await cacheOperation("save \(items.count) items to") { try await $0.save(collection) }
        }
    }

    /// Keeps what a confirmed write left (`items`, made from `previous` of version `previousVersion`) in the cache: a
    /// removal the source confirmed by the list it gave, or by nothing more (`confirmed` false), drops one row; other
    /// writes change their rows; a list the source changed in other ways too is saved whole. The problem, when the cache
    /// could neither take it nor be discarded.
    func keepWrite(
        _ writes: [ItemWrite], items: ItemCollection, from previous: ItemCollection, previousVersion: SourceVersion?, version: SourceVersion?,
        confirmed: Bool
    ) async -> String? {
        guard cache != nil else { return nil }
        if writes.count == 1, case .remove(let id) = writes[0] {
            if !confirmed {
                // The source said nothing of the other items: the row goes, the list's fetch time stays.
                return await cacheChange("drop \(id) from") { try await $0.remove(id: id) }
            }
            if items.isRemoval(of: id, from: previous) {
                let fetchedAt = reading { $0.confirmed?.provenance.fetchedAt } ?? now()
                return await cacheChange("drop \(id) from") { try await $0.remove(id: id, fetchedAt: fetchedAt, version: version) }
            }
        }
        let (source, idField, fetchedAt) = reading { ($0.source, $0.idField, $0.confirmed?.provenance.fetchedAt ?? now()) }
        let collection = CachedCollection(items: items, fetchedAt: fetchedAt, version: version, source: source.description, idField: idField)
        if let delta = items.delta(from: previous), delta.ids.count <= Self.largestRowByRowChange {
            let changedIDs = delta.changed.map(\.id) + delta.added.map(\.item.id)
            let (applied, problem) = await cacheChangeOutcome("write \(writes.count) changes to") {
                try await $0.apply(to: collection, from: previousVersion, changedIDs: changedIDs, removedIDs: delta.removed)
            }
            if problem != nil || applied { return problem }
        }
        return await cacheChange("save \(items.count) items to") { try await $0.save(collection) }
    }

    /// Past this many changes at once, the cache takes the whole list: one pass beats many lookups.
    static let largestRowByRowChange = 1000

    /// A change that must not be undone by a restart (a write, a wipe), made after the updates queued before it (or
    /// instead of the lists kept, `supersedingKept`, when it replaces them all):
    /// when the cache cannot take it, the cache is discarded rather than left to serve what was changed or wiped. When
    /// even that fails, the problem comes back, for the mutation to fail with: what is still on disk, and what to do.
    func cacheChange(
        _ what: String, supersedingKept: Bool = false, _ operation: @escaping @Sendable (any CollectionCache) async throws -> Void
    ) async -> String? {
        await cacheChangeOutcome(what, supersedingKept: supersedingKept) {
            try await operation($0)
            return true
        }.problem
    }

    /// `cacheChange` of an operation that says whether it did the change (`applied`; false when it threw).
    private func cacheChangeOutcome(
        _ what: String, supersedingKept: Bool = false, _ operation: @escaping @Sendable (any CollectionCache) async throws -> Bool
    ) async -> (applied: Bool, problem: String?) {
        guard cache != nil else { return (false, nil) }
        return await cacheLane.perform(dropsKept: supersedingKept) { [self] in await makeCacheChange(what, operation) }
    }

    private func makeCacheChange(_ what: String, _ operation: (any CollectionCache) async throws -> Bool) async -> (applied: Bool, problem: String?) {
        guard let cache else { return (false, nil) }
        do {
            return (try await operation(cache), nil)
        } catch {
            do {
                try await cache.discard()
                logger.error("cannot \(what) the cache (\(error)); its files were deleted, so they are never served")
                return (false, nil)
            } catch let discardError {
                let problem =
                    "the cache could not take it (\(error)) nor be deleted (\(discardError)): it is no longer read while depotd runs, but after a restart it would serve what it holds; make the state directory writable, then wipe or remove again"
                logger.critical("cannot \(what) the cache: \(problem)")
                return (false, problem)
            }
        }
    }

    /// Runs `operation` on the cache, if there is one, and returns what it returned; nil when there is no cache or it
    /// failed, which is logged, never passed on.
    @discardableResult
    private func cacheOperation<Value>(_ what: String, _ operation: (any CollectionCache) async throws -> Value) async -> Value? {
        guard let cache else { return nil }
        do {
            return try await operation(cache)
        } catch {
            logger.warning("cannot \(what) the cache: \(error)")
            return nil
        }
    }

    /// Waits until the on-disk cache has taken every update queued before now (the lists kept behind the mutations).
    public func cacheSettled() async {
        await cacheLane.flush()
    }
}
