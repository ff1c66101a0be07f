import DepotPlatform
import DepotTestSupport
import Testing

@testable import DepotCore

/// The cache's updates behind the mutations: in order, a newer whole list dropping the kept ones before it, an awaited
/// change after everything queued before it, and nothing left undone at the end.
@Suite("CacheLane: the cache's updates, in order, behind the mutations", .timeLimit(.minutes(1)))
struct CacheLaneTests {
    /// Runs `body` with a lane whose `run` goes on in a child task, then closes it and waits for it to drain.
    static func withLane(_ body: (CacheLane, Locked<[String]>) async throws -> Void) async throws {
        let lane = CacheLane()
        let done = Locked<[String]>([])
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await lane.run() }
            try await body(lane, done)
            lane.close()
        }
    }

    /// Waits until `count` updates are queued: a call made in a child task has reached the lane.
    static func queued(_ count: Int, in lane: CacheLane) async throws {
        try await withTimeout(.seconds(10), "\(count) updates to be queued") {
            while lane.queuedUpdates < count { await Task.yield() }
        }
    }

    @Test("updates are made one at a time, in the order asked; an awaited one after every one before it")
    func order() async throws {
        try await Self.withLane { lane, done in
            let gate = Gate()
            lane.keep(wholeList: true) {
                await gate.wait()
                done.withLock { $0.append("list 1") }
            }
            lane.keep(wholeList: false) { done.withLock { $0.append("rows 1") } }
            gate.open()
            let answer = await lane.perform {
                done.withLock {
                    $0.append("write")
                    return $0.count
                }
            }
            #expect(answer == 3, "made after the two kept before it")
            #expect(done.withLock { $0 } == ["list 1", "rows 1", "write"])
        }
    }

    @Test("a whole list drops the kept updates queued before it that have not begun; awaited ones stay")
    func superseded() async throws {
        try await Self.withLane { lane, done in
            let gate = Gate()
            let begun = Condition(false)
            lane.keep(wholeList: true) {
                begun.update { $0 = true }
                await gate.wait()
                done.withLock { $0.append("list 1 (begun)") }
            }
            // While list 1 is being saved: these queue behind it.
            try await withTimeout(.seconds(10), "list 1 to begin") { await begun.wait { $0 } }
            lane.keep(wholeList: false) { done.withLock { $0.append("rows 1") } }
            async let write: Void = lane.perform { done.withLock { $0.append("write") } }
            try await Self.queued(2, in: lane)
            lane.keep(wholeList: true) { done.withLock { $0.append("list 2") } }
            gate.open()
            await write
            await lane.flush()
            #expect(done.withLock { $0 } == ["list 1 (begun)", "write", "list 2"], "rows 1 dropped: list 2 holds them")
        }
    }

    @Test("a wipe drops every kept update queued; close makes every update queued before the lane ends")
    func wipeAndClose() async throws {
        let lane = CacheLane()
        let done = Locked<[String]>([])
        lane.keep(wholeList: true) { done.withLock { $0.append("list") } }
        lane.keep(wholeList: false) { done.withLock { $0.append("rows") } }
        lane.keep(wholeList: false) { done.withLock { $0.append("more rows") } }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { _ = await lane.perform(dropsKept: true) { done.withLock { $0.append("clear") } } }
            try await Self.queued(1, in: lane)
            lane.keep(wholeList: false) { done.withLock { $0.append("after the wipe") } }
            group.addTask { await lane.run() }
            lane.close()
        }
        #expect(done.withLock { $0 } == ["clear", "after the wipe"])
        // Closed: an awaited change is made at once; a kept one is not queued.
        #expect(await lane.perform { "now" } == "now")
        lane.keep(wholeList: true) { done.withLock { $0.append("too late") } }
        #expect(done.withLock { $0 }.last == "after the wipe")
    }

    @Test("cancelled, the lane makes what is queued and ends, rather than waiting for a wake-up again and again")
    func cancelled() async throws {
        let lane = CacheLane()
        let done = Locked<[String]>([])
        lane.keep(wholeList: true) { done.withLock { $0.append("list") } }
        try await withTimeout(.seconds(10), "the cancelled lane to end") {
            await withDiscardingTaskGroup { group in
                group.addTask { await lane.run() }
                group.cancelAll()
            }
        }
        #expect(done.withLock { $0 } == ["list"])
        // Closed by the cancellation: an awaited change is made at once.
        #expect(await lane.perform { "now" } == "now")
    }
}
