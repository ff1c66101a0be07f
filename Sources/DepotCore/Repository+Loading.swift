import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Loading: the source asked (conditionally, when items and their version are held), the cache standing in when it
/// fails, and what a source with a change log says changed. Each runs with no write pending (`exclusively`).
extension Repository {
    func performLoad(_ strategy: RetrievalStrategy) async -> MutationResult {
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
            if reading({ $0.confirmed == nil }), let cached = await readCache() {
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
        // A version describes the items held; without items there is nothing it could leave unchanged.
        let (held, known) = reading { ($0.confirmed?.items, $0.confirmed?.version) }
        if publishingLoading {
            publishingIfAny { $0.loading() }
        }
        switch await fetchCollection(ifChangedSince: known, held: held) {
        case .success(.items(let items, let newVersion, let changes)):
            return await publishFetched(items, version: newVersion, changes: changes)
        case .success(.unchanged):
            // fetchCollection answers unchanged only when it was given a version, so only when items are held.
            guard let held, let known else { preconditionFailure("unchanged without a version") }
            let published = await publishConfirmed()
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
                let published = publishingIfAny { $0.fail(error) } ?? current
                logger.error("load failed: \(error.message)", metadata: ["seq": "\(published.seq)"])
                return .failure(RepositoryError(error, state: published))
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
        let previous = reading { $0.confirmed?.version }
        let fetchedAt = now()
        let published = publishing { $0.confirm(items, provenance: .source(at: fetchedAt, revision: newVersion?.revision), version: newVersion) }
        guard let changes else {
            logger.info("loaded \(items.count) items from \(source.description)", metadata: ["seq": "\(published.seq)"])
            keep(items, fetchedAt: fetchedAt, version: newVersion)
            audit(items.items, of: items.count, seq: published.seq)
            return .success(published)
        }
        // Debug, not info: a table that changes all day would otherwise fill the journal with a line per change, and
        // format one on every change of every daemon of a fleet.
        logger.debug(
            "applied \(changes.count) change\(changes.count == 1 ? "" : "s") from \(source.description); \(items.count) items\(newVersion?.revision.map { " at revision \($0)" } ?? "")",
            metadata: ["seq": "\(published.seq)"])
        keep(items, fetchedAt: fetchedAt, version: newVersion, changes: changes, from: previous)
        let idField = reading { $0.idField }
        audit(
            changes.changed.compactMap { ItemCollection.id(of: $0, idField: idField).flatMap { items.item(id: $0) } }, of: changes.count,
            seq: published.seq)
        return .success(published)
    }

    /// With an item schema, the items a load brought that do not fit it are logged — how many, and the first few with
    /// their violations — and served all the same: the source holds them, and depotd shows what the source holds (a
    /// write of such an item is refused until it fits). Costs a parse and a check per item brought.
    private func audit(_ items: some Sequence<Item>, of count: Int, seq: Int) {
        guard let validator = writeRules.validator else { return }
        var invalid = 0
        var examples: [String] = []
        for item in items {
            guard let value = try? item.value else { continue }
            let violations = validator.violations(of: value)
            guard !violations.isEmpty else { continue }
            invalid += 1
            if examples.count < 3 { examples.append("\"\(item.id)\": \(violations.prefix(2).map(\.description).joined(separator: "; "))") }
        }
        guard invalid > 0 else { return }
        logger.warning(
            "\(invalid) of the \(count) items loaded do not fit the item schema; they are served, and a write of one is refused until it fits: \(examples.joined(separator: " · "))",
            metadata: ["seq": "\(seq)"])
    }

    /// The items held, which the source just said are unchanged since the version held, published again as the
    /// source's, fetched now; the cache records the new fetch time with one row, not the list.
    func publishConfirmed() async -> PublishedState {
        let fetchedAt = now()
        guard let published = publishingIfAny({ $0.confirmUnchanged(at: fetchedAt) }) else { return current }
        if let items = published.state.items {
            let known = reading { $0.confirmed?.version }
            keep(items, fetchedAt: fetchedAt, version: known, changes: SourceChanges(), from: known)
        }
        return published
    }

    @discardableResult
    private func publishCached(_ cached: CachedCollection, staleBecause reason: String? = nil) -> PublishedState {
        let stale = reason != nil
        let provenance = Provenance(
            origin: .cache, fetchedAt: cached.fetchedAt, stale: stale, revision: cached.version?.revision, staleReason: reason)
        let published = publishing { $0.confirm(cached.items, provenance: provenance, version: cached.version) }
        logger.info(
            "serving \(cached.items.count) cached items fetched at \(cached.fetchedAt)\(stale ? " (stale)" : "")",
            metadata: ["seq": "\(published.seq)"]
        )
        return published
    }

    /// Publishes the items held again, marked stale; nil when there are none or they already are.
    func publishStale(because reason: String) -> PublishedState? {
        guard let published = publishingIfAny({ $0.markStale(because: reason) }) else { return nil }
        logger.warning("serving \(published.state.items?.count ?? 0) items marked stale: \(reason)", metadata: ["seq": "\(published.seq)"])
        return published
    }

    /// `follow`'s work: the changes since the version held, or nothing.
    func performFollow(through revision: Int64?) async -> MutationResult {
        let (held, known) = reading { ($0.confirmed, $0.confirmed?.version) }
        guard let held, current.state.status == .success else { return .success(current) }
        // A wake-up for a change a mutation ahead of this one already brought (a write's own): nothing to ask.
        if let revision, let reached = known?.revision, reached >= revision, !held.provenance.stale { return .success(current) }
        switch await fetchCollection(ifChangedSince: known, held: held.items) {
        case .success(.items(let newItems, let newVersion, let changes)):
            if changes == nil {  // A full listing: the source could not say what changed.
                logger.notice(
                    "\(source.description) could not say what changed since \(known?.description ?? "the items held"); reloaded in full")
            }
            return await publishFetched(newItems, version: newVersion, changes: changes)
        case .success(.unchanged):
            guard held.provenance.stale else { return .success(current) }
            let published = await publishConfirmed()
            logger.info(
                "\(source.description) is reachable again and unchanged; \(held.items.count) items no longer stale",
                metadata: ["seq": "\(published.seq)"])
            return .success(published)
        case .failure(let error):
            let published = publishStale(because: error.message) ?? current
            return .failure(RepositoryError(error, state: published))
        }
    }
}
