import DepotCore
import DepotFreshness
import DepotPlatform
import DepotSources
import DepotTestSupport
import Dispatch
import Glibc
import Logging
import NIOCore
import NIOPosix
import Testing

/// The watcher on real inotify, on tmpfs and on the disk, with a clock the test moves: each test waits for the watcher
/// to arm its settle timer (the change was seen), moves the clock past it, and waits for the state it expects.
@Suite("FileWatcher: real inotify, a test clock")
struct FileWatcherTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    struct Harness {
        let directory: TemporaryDirectory
        let path: String
        let repository: Repository
        let recorder = StateRecorder()
        let clock = ManualClock()
        let changes = Condition<[FileChange]>([])
        /// Every fetch's outcome, as the repository tells it.
        let activity = Condition<[SourceActivity]>([])
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let watcher: FileWatcher<ManualClock>

        init(on filesystem: TestFilesystem, _ text: String = #"[{"id": 1}]"#) {
            directory = filesystem.temporaryDirectory()
            path = directory.write("items.json", text)
            repository = Repository(source: FileSource(path: path), logger: FileWatcherTests.quiet).running()
            repository.addObserver(recorder)
            let (changes, activity) = (changes, activity)
            repository.addActivityObserver { event in activity.update { $0.append(event) } }
            watcher = FileWatcher(
                path: path, repository: repository, clock: clock, eventLoopGroup: loop, logger: FileWatcherTests.quiet,
                onChange: { change in changes.update { $0.append(change) } })
        }

        func run(_ body: @escaping @Sendable (Harness) async throws -> Void) async throws {
            defer { directory.remove() }
            _ = try await repository.load().result.get()
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await watcher.run() }
                    try await withTimeout(.seconds(60), "the watcher's test") {
                        // The watches were set when the watcher was made; their events wait in the kernel until it reads.
                        try #require(watcher.status.watchedFile != nil, "the watch could not be set: \(watcher.status.problem ?? "")")
                        try await body(self)
                    }
                    group.cancelAll()
                }
            } catch {
                try? await loop.shutdownGracefully()
                throw error
            }
            try await loop.shutdownGracefully()
        }

        /// Waits for the settle timer (a change was seen and settles), moves the clock past it, and waits until the
        /// current state satisfies `predicate`.
        func settles(_ what: String, until predicate: @escaping @Sendable (PublishedState) -> Bool) async throws {
            try await withTimeout(.seconds(30), "the change to be seen") { await clock.sleepers.wait { !$0.isEmpty } }
            clock.advance(by: .seconds(1))
            try await withTimeout(.seconds(30), what) { await recorder.states.wait { $0.last.map(predicate) ?? false } }
        }

        /// Writes a file that does not parse (a writer's first write, closed), lets its change settle, and waits until
        /// the failed read waits to be confirmed: the file must be left alone a moment before the failure is shown.
        func readsUnparseable() async throws {
            TestFiles.write(path, bytes: Array(#"[{"id":"#.utf8))
            try await withTimeout(.seconds(30), "the change to be seen") { await clock.sleepers.wait { !$0.isEmpty } }
            clock.advance(by: .seconds(1))
            try await withTimeout(.seconds(30), "the failure to wait") { await clock.sleepers.wait { !$0.isEmpty } }
        }

        var ids: [String]? { repository.current.state.items?.items.map(\.id) }
    }

    static func ids(_ expected: [String]) -> @Sendable (PublishedState) -> Bool {
        { $0.state.items?.items.map(\.id) == expected && $0.state.provenance?.stale == false }
    }

    @Test("a lost event queue means: look again", arguments: TestFilesystem.allCases)
    func overflow(_ filesystem: TestFilesystem) async throws {
        try await Harness(on: filesystem).run { harness in
            // Hold the loop that reads the descriptor, fill the kernel's queue with events for other files (alternating,
            // so none merges with the one before), then change the file: its events are lost, only the overflow tells.
            let held = DispatchSemaphore(value: 0)
            let holding = Condition(false)
            harness.loop.next().execute {
                holding.update { $0 = true }
                held.wait()
            }
            await holding.wait { $0 }
            let limit = TestFiles.text("/proc/sys/fs/inotify/max_queued_events").flatMap { Int($0.filter(\.isNumber)) } ?? 16384
            let descriptors = ["a", "b"].map { open(harness.directory.file($0), O_WRONLY | O_CREAT, 0o644) }
            for index in 0...(limit + 10) {
                _ = write(descriptors[index % 2], "x", 1)
            }
            descriptors.forEach { close($0) }
            TestFiles.write(harness.path, bytes: Array(#"[{"id": 2}]"#.utf8))
            held.signal()
            try await harness.settles("the file read again") { Self.ids(["2"])($0) }
            #expect(harness.changes.value.contains(.unknown))
        }
    }

    @Test("written in place in several writes: nothing is read before it is closed", arguments: TestFilesystem.allCases)
    func inPlace(_ filesystem: TestFilesystem) async throws {
        try await Harness(on: filesystem).run { harness in
            let descriptor = open(harness.path, O_WRONLY | O_TRUNC)
            _ = write(descriptor, "[{\"id\":", 7)
            try await withTimeout(.seconds(30), "the write to be seen") { await harness.changes.wait { $0.contains(.writing) } }
            harness.clock.advance(by: .seconds(60))
            #expect(harness.clock.sleepers.value.isEmpty, "no timer while the file is written")
            _ = write(descriptor, " 3}]", 4)
            close(descriptor)
            // Its first change was a minute ago: the close is checked at once, with no settle timer.
            try await withTimeout(.seconds(30), "the whole file read") {
                await harness.recorder.states.wait { $0.last.map(Self.ids(["3"])) ?? false }
            }
            #expect(harness.recorder.states.value.allSatisfy { $0.state.status != .failure && $0.state.provenance?.stale != true })
        }
    }

    @Test(
        "truncated again just as it was read: the half file is no failure, and the whole one is read once closed",
        arguments: TestFilesystem.allCases)
    func truncatedWhileRead(_ filesystem: TestFilesystem) async throws {
        try await Harness(on: filesystem).run { harness in
            try await harness.readsUnparseable()
            let seen = harness.changes.value.count
            TestFiles.write(harness.path, bytes: Array(#"[{"id": 5}]"#.utf8))
            try await withTimeout(.seconds(30), "the rewrite to be seen") {
                await harness.changes.wait { $0.count > seen && $0.last == .written }
            }
            harness.clock.advance(by: .seconds(1))
            try await withTimeout(.seconds(30), "the whole file read") {
                await harness.recorder.states.wait { $0.last.map(Self.ids(["5"])) ?? false }
            }
            #expect(harness.recorder.states.value.allSatisfy { $0.state.status != .failure && $0.state.provenance?.stale != true })
            #expect(!harness.activity.value.contains { if case .failed = $0 { true } else { false } }, "no failure recorded")
        }
    }

    @Test("left unreadable: once it stays so, the items are marked stale, saying why", arguments: TestFilesystem.allCases)
    func leftUnreadable(_ filesystem: TestFilesystem) async throws {
        try await Harness(on: filesystem).run { harness in
            try await harness.readsUnparseable()
            #expect(harness.repository.current.state.provenance?.stale == false, "not yet shown")
            harness.clock.advance(by: .seconds(1))
            try await withTimeout(.seconds(30), "the items marked stale") {
                await harness.recorder.states.wait { $0.last?.state.provenance?.stale == true }
            }
            #expect(harness.ids == ["1"], "the items held stay")
            #expect(harness.repository.sourceHealth.consecutiveFailures == 1)
        }
    }

    @Test("deleted: the items are marked stale, saying so; created again: read, and fresh", arguments: TestFilesystem.allCases)
    func deletedAndBack(_ filesystem: TestFilesystem) async throws {
        try await Harness(on: filesystem).run { harness in
            unlink(harness.path)
            try await harness.settles("the items marked stale") { $0.state.provenance?.stale == true }
            #expect(harness.repository.current.state.provenance?.staleReason?.contains("\(harness.path) was deleted") == true)
            harness.directory.write("items.json", #"[{"id": 4}]"#)
            try await harness.settles("the new file read") { Self.ids(["4"])($0) }
        }
    }

    @Test("depotd's own rewrite after a removal is read back as what it holds: nothing more is published")
    func ownRewrite() async throws {
        try await Harness(on: .disk, #"[{"id": 1}, {"id": 2}]"#).run { harness in
            let removed = try await harness.repository.remove(id: "2").result.get()
            try await withTimeout(.seconds(30), "the rewrite to be seen") { await harness.clock.sleepers.wait { !$0.isEmpty } }
            harness.clock.advance(by: .seconds(1))
            // The load, and the refresh the rewrite caused: each read the file.
            try await withTimeout(.seconds(30), "the refresh the rewrite caused") { await harness.activity.wait { $0.count == 2 } }
            #expect(harness.activity.value.allSatisfy { $0 == .answered(lifetime: nil) }, "the file was read, and answered")
            #expect(harness.recorder.states.value.last == removed, "and nothing was published")
        }
    }

    @Test("a directory that does not exist: not watched, and the problem says which")
    func missingDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nowhere/items.json")
        let repository = Repository(source: FileSource(path: path), logger: Self.quiet).running()
        let watcher = FileWatcher(path: path, repository: repository, clock: ManualClock(), logger: Self.quiet)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await watcher.run() }
            // Known as soon as the watcher is made: it sets its watches then.
            #expect(watcher.status.watchedFile == nil)
            #expect(watcher.status.problem?.contains("cannot watch \(directory.file("nowhere")): it does not exist") == true)
            group.cancelAll()
        }
    }
}
