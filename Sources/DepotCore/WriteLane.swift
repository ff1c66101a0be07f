/// The source's side of optimistic writes: each is shown when its turn comes (`MutationQueue`), then handed here, where
/// the source is asked to make them one at a time, in the order they were shown — so the source makes them in the
/// order subscribers saw them, and writes to one item from several connections keep their order. Meanwhile the queue
/// goes on: the next optimistic write is shown while the source still works on the one before, up to the repository's
/// bound of pending writes; anything else (a load, a non-optimistic write, a wipe) waits until the lane is empty.
///
/// Built on two `AsyncStream`s: the writes handed in, and a tick for each write done, on which the queue's turn waits
/// (`wait(until:)`) for room or for the lane to empty. `run` is a child of the repository's run, so the service tree
/// owns it; a write under way at shutdown has the repository's grace, and those after it are not made.
final class WriteLane: Sendable {
    /// One write handed on: `make` asks the source and finishes the write's mutation; `drop` ends it unmade.
    struct Work: Sendable {
        let make: @Sendable () async -> Void
        let drop: @Sendable (String) -> Void
    }

    private let (work, workInput) = AsyncStream.makeStream(of: Work.self)
    // A wake-up needs only the newest tick.
    private let (done, doneInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// Hands `work` to the lane, after every write handed before it.
    func hand(_ work: Work) {
        if case .terminated = workInput.yield(work) {
            work.drop(MutationQueue.stoppedReason)
        }
    }

    /// No more writes come: `run` returns once those handed are made or dropped.
    func close() {
        workInput.finish()
    }

    /// Makes the writes handed, one at a time, until `close`. `perform` runs one (with the grace it has at shutdown);
    /// `stopping` says whether depotd is stopping, when writes not yet begun are dropped instead.
    func run(perform: (@escaping @Sendable () async -> Void) async -> Void, stopping: @Sendable () -> Bool) async {
        for await next in work {
            if stopping() {
                next.drop(MutationQueue.stoppedReason)
            } else {
                await perform(next.make)
            }
            doneInput.yield()
        }
        doneInput.finish()
    }

    /// Waits until `condition` holds, looking again each time a write is done (or at once, when it holds now). Called
    /// by one task at a time: the queue's turn. Returns false when the lane has ended first.
    func wait(until condition: () -> Bool) async -> Bool {
        if condition() { return true }
        for await _ in done {
            if condition() { return true }
        }
        return condition()
    }
}
