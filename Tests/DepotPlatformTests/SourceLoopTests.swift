import DepotPlatform
import DepotTestSupport
import NIOCore
import NIOPosix
import Testing

@Suite("SourceLoop: the source's thread, as a task executor")
struct SourceLoopTests {
    @Test("a task that prefers it runs on its loop — after an await another thread resumes too — and so do its child tasks")
    func tasksRunOnItsLoop() async throws {
        try await withSourceLoop { source in
            let elsewhere = MultiThreadedEventLoopGroup.singleton.next()
            let seen = try await withTaskExecutorPreference(source) {
                var seen = ["at the start": source.eventLoop.inEventLoop]
                // Answered on another loop's thread, as a query is by its connection's when that is not this loop.
                seen["the answer came from elsewhere"] = try await elsewhere.submit { !source.eventLoop.inEventLoop }.get()
                seen["after the answer"] = source.eventLoop.inEventLoop
                async let child = source.eventLoop.inEventLoop
                seen["an async let"] = await child
                seen["a task group's child"] = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { source.eventLoop.inEventLoop }
                    return await group.next() ?? false
                }
                return seen
            }
            #expect(seen.count == 5 && seen.values.allSatisfy { $0 }, "\(seen)")
            #expect(!source.eventLoop.inEventLoop, "the preference ends with its scope")
        }
    }
}

@Suite("withDeadline on a SourceLoop: a query's time limit on the loop's own timers (LoopClock)")
struct SourceLoopDeadlineTests {
    @Test("an operation that finishes in time gives its value, having run on the loop")
    func finishesInTime() async throws {
        try await withSourceLoop { source in
            let ranOnLoop = try await withDeadline(.seconds(60), on: source.clock, preferring: source) { source.eventLoop.inEventLoop }
            #expect(ranOnLoop)
        }
    }

    @Test("an operation that never answers fails with DeadlineExceeded once the limit passes, and is cancelled")
    func neverAnswers() async throws {
        try await withSourceLoop { source in
            let cancelled = Eventual<Void>()
            let never = Eventual<Void>()
            await #expect(throws: DeadlineExceeded.self) {
                try await withDeadline(.milliseconds(20), on: source.clock, preferring: source) {
                    try await withTaskCancellationHandler {
                        try await never.value
                    } onCancel: {
                        cancelled.resolve(())
                    }
                }
            }
            try await withTimeout(.seconds(60), "the operation to be cancelled") { try await cancelled.value }
        }
    }

    @Test("while the operation makes progress its deadline moves on; once progress stops, the limit cuts it off")
    func progressMovesTheDeadline() async throws {
        try await withSourceLoop { source in
            // Asked at the start, then each time the timer fires: progress "now" the first four times, none after.
            let asked = Locked(0)
            let start = ContinuousClock.now
            await #expect(throws: DeadlineExceeded.self) {
                try await withDeadline(
                    .milliseconds(20),
                    countingFrom: {
                        asked.withLock { count in
                            count += 1
                            return count <= 4 ? ContinuousClock.now : start
                        }
                    }, on: source.clock, preferring: source
                ) { try await Eventual<Void>().value }
            }
            #expect(asked.withLock { $0 } == 5, "armed once, moved on three times, cut off at the fifth look")
        }
    }

    @Test("a cancelled caller stops waiting at once, with CancellationError")
    func callerCancelled() async throws {
        try await withSourceLoop { source in
            let started = Eventual<Void>()
            let caller = Task {
                try await withDeadline(.seconds(3600), on: source.clock, preferring: source) {
                    started.resolve(())
                    try await Eventual<Void>().value
                }
            }
            try await started.value
            caller.cancel()
            await #expect(throws: CancellationError.self) { try await caller.value }
        }
    }
}

@Suite("LoopClock: sleeps that are an event loop's timers")
struct LoopClockTests {
    @Test("a sleep ends at its deadline, on the loop of a task that prefers it")
    func sleepsUntilTheDeadline() async throws {
        try await withSourceLoop { source in
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(20))
            let onLoop = try await withTaskExecutorPreference(source) {
                try await source.clock.sleep(until: deadline)
                return source.eventLoop.inEventLoop
            }
            #expect(ContinuousClock.now >= deadline)
            #expect(onLoop)
        }
    }

    @Test("a sleep cancelled while it waits, or before it began, ends at once with CancellationError", arguments: [false, true])
    func cancelledSleep(beforeItBegins: Bool) async throws {
        try await withSourceLoop { source in
            let started = Eventual<Void>()
            let proceed = Eventual<Void>()
            let sleeper = Task {
                started.resolve(())
                if beforeItBegins { try? await proceed.value }
                try await source.clock.sleep(until: .now.advanced(by: .seconds(3600)))
            }
            try await started.value
            sleeper.cancel()
            await #expect(throws: CancellationError.self) {
                try await withTimeout(.seconds(60), "the hour-long sleep to end when cancelled") { try await sleeper.value }
            }
        }
    }
}
