import DepotPlatform
import DequeModule

/// The on-disk cache's updates, made one at a time in the order they were asked for, behind the mutations rather than
/// inside them: a load publishes its list and ends, and the next mutation — the first write after start — runs while
/// the list (a million rows, seconds of SQLite) is still being saved. Two kinds of update:
///
/// - kept (`keep`): a list the source gave, saved whole or row by row. It only ever helps, so no one waits for it;
///   a newer whole list drops those queued before it that have not begun (it holds what they would have written).
/// - awaited (`perform`): a change that must not be undone by a restart (a write, a wipe), whose caller waits for it
///   and for everything queued before it — so a confirmed write is in the cache, after the list it was made to.
///
/// `run` is a child of the repository's run, so the service tree owns it; at shutdown it makes every update queued
/// (the list kept last, the writes confirmed) before it returns, and the cache closes after it.
final class CacheLane: Sendable {
    private enum Job: Sendable {
        case kept(@Sendable () async -> Void)
        case awaited(@Sendable () async -> Void)

        var work: @Sendable () async -> Void {
            switch self {
            case .kept(let work), .awaited(let work): work
            }
        }
    }

    private struct Queue {
        var jobs: Deque<Job> = []
        var closed = false

        /// Drops the kept updates not yet begun: what comes next holds, or clears, what they would save.
        mutating func dropKept() {
            jobs.removeAll { if case .kept = $0 { true } else { false } }
        }
    }

    private let queue = Locked(Queue())
    // A wake-up needs only the newest tick.
    private let (wake, wakeInput) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// Queues a kept update; a whole list drops the kept updates queued before it. After `close`, nothing is queued
    /// (the repository has stopped: what it kept last is already queued).
    func keep(wholeList: Bool, _ work: @escaping @Sendable () async -> Void) {
        let queued = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            if wholeList { queue.dropKept() }
            queue.jobs.append(.kept(work))
            return true
        }
        if queued { wakeInput.yield() }
    }

    /// Runs `work` after every update queued before it, and returns what it returns; `dropsKept` drops the kept
    /// updates queued (a wipe: they would save what it clears). After `close`, runs it at once.
    func perform<Value: Sendable>(dropsKept: Bool = false, _ work: @escaping @Sendable () async -> Value) async -> Value {
        let queuedResult: Value?? = await withCheckedContinuation { (continuation: CheckedContinuation<Value??, Never>) in
            let job = Job.awaited { continuation.resume(returning: .some(await work())) }
            let queued = queue.withLock { queue -> Bool in
                guard !queue.closed else { return false }
                if dropsKept { queue.dropKept() }
                queue.jobs.append(job)
                return true
            }
            if queued {
                wakeInput.yield()
            } else {
                continuation.resume(returning: nil)
            }
        }
        if case .some(.some(let value)) = queuedResult { return value }
        return await work()
    }

    /// The updates queued and not yet begun.
    var queuedUpdates: Int {
        queue.withLock { $0.jobs.count }
    }

    /// Waits until every update queued before now is made.
    func flush() async {
        await perform {}
    }

    /// No more updates are queued: `run` returns once those queued are made.
    func close() {
        queue.withLock { $0.closed = true }
        wakeInput.yield()
    }

    /// Makes the updates queued, one at a time in order, until `close` and the queue is empty. Cancelled, it closes
    /// the lane itself (a cancelled wait for a wake-up returns at once, and would otherwise be waited for again and
    /// again): what is queued is made, and what comes after runs at once.
    func run() async {
        var wakes = wake.makeAsyncIterator()
        while true {
            let next = queue.withLock { queue -> (job: Job?, closed: Bool) in (queue.jobs.popFirst(), queue.closed) }
            if let job = next.job {
                await job.work()
                continue
            }
            if next.closed { return }
            if await wakes.next() == nil { close() }
        }
    }
}
