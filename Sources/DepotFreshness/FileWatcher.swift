package import DepotCore
import DepotPlatform
package import Logging
package import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Watches a `file:` source with inotify and refreshes the repository when the file changes: written and closed,
/// replaced by a rename, created again, swapped behind a symlink. Bursts are settled (`FileChangeSettler`); a file
/// being written is read only once closed; a lost event queue means "look again". A file still gone once its changes
/// settled marks the items stale, saying it was deleted; its return reloads it. depotd's own rewrite after a removal
/// reads back as what the repository holds, and publishes nothing (`FileSource`'s digest).
///
/// The watches are set when a path is given (at `init`, or by `watch(_:)`), before the source is loaded from it, so
/// no change between that load and the watch goes unseen: events wait in the kernel until the service reads them.
/// The inotify descriptor is read on an event loop (a NIO pipe channel); its events are handled on this service's
/// task. A directory that does not exist, or a watch the system refuses (its per-user limits), is logged once and
/// shown in `stats`, and depotd goes on without watching.
package final class FileWatcher<C: Clock>: Service where C.Duration == Duration {
    /// What one watch of one path holds while it lasts.
    private struct Session {
        let number: Int
        var path: WatchedPath
        let descriptor: Int32
        let channel: any Channel
        /// Watch numbers and the directories they watch.
        var watches: [Int32: String] = [:]
        var settler: FileChangeSettler<C.Instant>
        /// A change named the file itself since it was last looked at (not only an entry beside a symlink).
        var direct = false
        /// What the file was when last looked at; nil when it was not there.
        var stamp: FileStamp?
        /// The last look found no file (and the items were marked stale for it).
        var missing = false
    }

    private let repository: Repository
    private let clock: C
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let settle: Duration
    private let longest: Duration
    private let inbox = Inbox<FileWatchEvent>()
    /// What `status` shows (the file watched, or why none is), and how many changes of the file have been handled (a
    /// failed read is withdrawn when more came since): read from other tasks while the loop changes them.
    private let watching = Locked<(file: String?, problem: String?, changesHandled: Int)>((nil, nil, 0))
    /// Told of every change seen, as it is handled: a seam for whoever follows the watch (the suite waits on it
    /// rather than on time); depotd gives none.
    private let onChange: @Sendable (FileChange) -> Void

    /// - Parameters:
    ///   - path: the file to watch from the start; nil for none.
    ///   - settle: how long no change must come before the file is read; `longest`: how long after a burst's first
    ///     change it is read however many more come.
    package init(
        path: String?, repository: Repository, clock: C, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger, settle: Duration = .milliseconds(100), longest: Duration = .seconds(1),
        onChange: @escaping @Sendable (FileChange) -> Void = { _ in }
    ) {
        self.onChange = onChange
        self.repository = repository
        self.clock = clock
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.settle = settle
        self.longest = longest
        inbox.post(.watch(path.flatMap(prepare)))
    }

    /// Watches `path` from now on instead (a reload); nil stops watching. The watches are set before this returns.
    package func watch(_ path: String?) {
        if path == nil {
            watching.withLock { ($0.file, $0.problem) = (nil, nil) }
        }
        inbox.post(.watch(path.flatMap(prepare)))
    }

    /// The file watched, or why the file that should be is not.
    package var status: (watchedFile: String?, problem: String?) {
        watching.withLock { ($0.file, $0.problem) }
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var session: Session?
            var sessions = 0
            var deadline: C.Instant?
            while !Task.isCancelled {
                await self.inbox.wait(until: deadline, on: self.clock)
                guard !Task.isCancelled else { break }
                let now = self.clock.now
                for event in self.inbox.take() {
                    switch event {
                    case .watch(let prepared):
                        await self.close(&session)
                        guard let prepared else { continue }
                        sessions += 1
                        session = await self.open(prepared, number: sessions)
                    case .inotify(let event, let number) where number == session?.number:
                        self.observe(event, in: &session, at: now)
                    case .failed(let reason, let number) where number == session?.number:
                        self.problem("stopped watching \(session?.path.path ?? "the file") for changes: \(reason)")
                        await self.close(&session)
                    case .inotify, .failed:
                        continue  // from a watch closed since
                    }
                }
                if session?.settler.action(at: now) == .check {
                    self.check(&session)
                }
                deadline = session?.settler.due
            }
            await self.close(&session)
        }
    }

    // MARK: Watching

    /// An inotify instance with the directories `path` needs watched; nil, with the problem logged and shown, when
    /// that cannot be done.
    private func prepare(_ path: String) -> PreparedWatch? {
        let descriptor: Int32
        do {
            descriptor = try Inotify.open()
        } catch {
            problem("not watching \(path) for changes: \(error); depotd goes on without watching it")
            return nil
        }
        var watches: [Int32: String] = [:]
        let watched = WatchedPath(path)
        guard setWatches(&watches, for: watched, on: descriptor) else {
            Glibc.close(descriptor)
            return nil
        }
        watching.withLock { ($0.file, $0.problem) = (path, nil) }
        return PreparedWatch(path: watched, descriptor: descriptor, watches: watches, stamp: FileStamp.of(path))
    }

    /// Reads `prepared`'s descriptor on an event loop from now on; nil, with the problem logged and shown, when it
    /// cannot be.
    private func open(_ prepared: PreparedWatch, number: Int) async -> Session? {
        let path = prepared.path.path
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: eventLoopGroup)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 64 * 1024))
                .channelInitializer { [inbox] channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(InotifyEventDecoder()))
                        try channel.pipeline.syncOperations.addHandler(FileWatchEventPoster(inbox: inbox, session: number))
                    }
                }
                .takingOwnershipOfDescriptor(input: prepared.descriptor)
                .get()
        } catch {
            Glibc.close(prepared.descriptor)
            problem("not watching \(path) for changes: its inotify descriptor cannot be read (\(error)); depotd goes on without watching it")
            return nil
        }
        logger.info("watching \(path) for changes (inotify on \(prepared.path.directories.joined(separator: " and ")))")
        var session = Session(
            number: number, path: prepared.path, descriptor: prepared.descriptor, channel: channel,
            settler: FileChangeSettler(settle: settle, longest: longest), stamp: prepared.stamp)
        session.watches = prepared.watches
        session.missing = prepared.stamp == nil
        return session
    }

    /// Watches the directories `path` needs now and no others; false, with the problem logged and shown, when the
    /// path's own directory cannot be watched.
    private func setWatches(_ watches: inout [Int32: String], for path: WatchedPath, on descriptor: Int32) -> Bool {
        let wanted = path.directories
        for (watch, directory) in watches where !wanted.contains(directory) {
            Inotify.unwatch(watch, on: descriptor)
            watches[watch] = nil
        }
        for directory in wanted where !watches.values.contains(directory) {
            do {
                watches[try Inotify.watch(directory, on: descriptor)] = directory
            } catch {
                guard directory == path.directory else {
                    logger.warning("watching \(path.path) without the directory of the file it leads to: \(error)")
                    continue
                }
                problem("not watching \(path.path) for changes: \(error); depotd goes on without watching it")
                return false
            }
        }
        return true
    }

    /// Stops reading the watch and closes its descriptor (what `stats` shows is set by whoever starts the next).
    private func close(_ session: inout Session?) async {
        guard let open = session else { return }
        session = nil
        try? await open.channel.close()
    }

    /// Logs `message` once and shows it in `stats`.
    private func problem(_ message: String) {
        logger.warning("\(message)")
        watching.withLock { ($0.file, $0.problem) = (nil, message) }
    }

    // MARK: Changes

    private func observe(_ event: InotifyEvent, in session: inout Session?, at now: C.Instant) {
        guard var open = session else { return }
        defer { session = open }
        let directory = event.isOverflow ? open.path.directory : open.watches[event.watch]
        guard let directory, let change = open.path.change(of: event, in: directory) else { return }
        logger.trace("\(open.path.path): \(change) (\(event))")
        watching.withLock { $0.changesHandled += 1 }
        onChange(change)
        if change != .maybeReplaced {
            open.direct = true
        }
        _ = open.settler.observed(change, at: now)
    }

    /// Whether a failed read of `path`, checked when it was `stamp`, stands: yes once the file has been left alone for
    /// the settle time — no change handled since, the same file. A writer that truncated it just after the check
    /// changes it again, and its close brings another check: the half file it was read as is never shown as a failure.
    private func failureStands(path: String, stamp: FileStamp?) -> Repository.FailureConfirmation {
        let handled = watching.withLock { $0.changesHandled }
        return { [watching, clock, settle] in
            try? await clock.sleep(for: settle)
            return watching.withLock { $0.changesHandled } == handled && FileStamp.of(path) == stamp
        }
    }

    /// Looks at the file once its changes settled: gone, the items are marked stale (once); there, it is refreshed
    /// when a change named it, it was gone, or it is another file now. Then the watches follow the path (a swapped
    /// symlink leads to another directory).
    private func check(_ session: inout Session?) {
        guard var open = session else { return }
        defer { session = open }
        open.settler.checked()
        let path = open.path.path
        let stamp = FileStamp.of(path)
        if stamp == nil {
            if !open.missing {
                open.missing = true
                // The journal's line is the repository's, as it marks the items stale.
                logger.debug("\(path) was deleted or moved away")
                repository.refresh(.fileDeleted(reason: "\(path) was deleted or moved away; these are the items it held last"))
            }
        } else if open.direct || open.missing || stamp != open.stamp {
            logger.debug("\(path) changed; refreshing")
            open.missing = false
            repository.refresh(.fileChanged, failureStands: failureStands(path: path, stamp: stamp))
        }
        open.stamp = stamp
        open.direct = false
        let current = WatchedPath(path)
        if current != open.path {
            open.path = current
            if !setWatches(&open.watches, for: current, on: open.descriptor) {
                logger.warning("no longer watching \(path) for changes")
            }
        }
    }
}

/// An inotify instance set up for a path, waiting to be read: its watches already report every change.
private struct PreparedWatch: Sendable {
    let path: WatchedPath
    let descriptor: Int32
    let watches: [Int32: String]
    /// What the file was when the watches were set; nil when it was not there.
    let stamp: FileStamp?
}

/// What reaches a `FileWatcher`'s task: a watch to read (nil: none), an event of the watch numbered `session`, or
/// its end.
private enum FileWatchEvent: Sendable {
    case watch(PreparedWatch?)
    case inotify(InotifyEvent, session: Int)
    case failed(String, session: Int)
}

/// Hands each inotify event read on the event loop to the watcher's inbox; a read error ends the watch.
private final class FileWatchEventPoster: ChannelInboundHandler, Sendable {
    typealias InboundIn = InotifyEvent

    private let inbox: Inbox<FileWatchEvent>
    private let session: Int

    init(inbox: Inbox<FileWatchEvent>, session: Int) {
        self.inbox = inbox
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        inbox.post(.inotify(unwrapInboundIn(data), session: session))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        inbox.post(.failed("reading its inotify descriptor failed: \(error)", session: session))
        context.close(promise: nil)
    }
}
