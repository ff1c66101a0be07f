import DepotCore
import DepotDaemon
import DepotSystemd
import DepotTestSupport
import Testing

extension SystemdNotifierTests {
    @Test("a burst of states costs a couple of STATUS messages, and the last one is the newest state")
    func statusIsRateLimited() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.file("notify"))
        try await ProcessVariables.with(["NOTIFY_SOCKET": socket.address]) {
            let reporter = StatusReporter(notifier: SystemdNotifier(), interval: .seconds(1))
            let running = Task { try await reporter.run() }
            defer { running.cancel() }
            for seq in 1...1000 {
                reporter.stateDidChange(to: PublishedState(seq: seq, state: .idle))
            }
            reporter.subscribersChanged(to: 3)
            let messages = try await socket.receive(until: { $0 == "STATUS=idle · 3 subscribers · seq 1000" })
            #expect(messages.count <= 3, "\(messages)")
        }
    }

    @Test("READY=1 goes out once, when the socket listens and the first outcome is published, in either order")
    func readyOnce() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.file("notify"))
        try await ProcessVariables.with(["NOTIFY_SOCKET": socket.address]) {
            let reporter = StatusReporter(notifier: SystemdNotifier())
            reporter.stateDidChange(to: PublishedState(seq: 1, state: .loading))
            reporter.listening()
            reporter.stateDidChange(to: PublishedState(seq: 2, state: .failure(StateError(.loadFailed, message: "down"))))
            reporter.stateDidChange(to: PublishedState(seq: 3, state: .idle))
            reporter.listening()
            reporter.stateDidChange(to: PublishedState(seq: 4, state: .failure(StateError(.loadFailed, message: "still down"))))
            // No STATUS= goes out (run is not running): the messages are READY=1's alone, and a marker sent after.
            SystemdNotifier().status("marker")
            let messages = try await socket.receive(until: { $0 == "STATUS=marker" })
            #expect(messages == ["READY=1\nSTATUS=failure: down · 0 subscribers · seq 2", "STATUS=marker"])
        }
    }

    @Test(
        "readiness: listening and a first outcome, in any order, make it ready once; idle and loading are no outcome",
        arguments: [
            (awaitsOutcome: true, steps: ["listening", "idle", "loading", "success", "failure", "listening"], readyAt: 3),
            (awaitsOutcome: true, steps: ["failure", "loading", "listening", "success"], readyAt: 2),
            (awaitsOutcome: true, steps: ["idle", "loading", "idle"], readyAt: nil),
            (awaitsOutcome: true, steps: ["success", "failure"], readyAt: nil),
            (awaitsOutcome: false, steps: ["idle", "listening", "success"], readyAt: 1),
            (awaitsOutcome: false, steps: ["listening", "listening"], readyAt: 0),
        ])
    func readinessSteps(awaitsOutcome: Bool, steps: [String], readyAt: Int?) {
        var progress = ReadinessProgress(hasFirstOutcome: !awaitsOutcome)
        var becameReady: [Int] = []
        for (index, step) in steps.enumerated() {
            let ready =
                step == "listening" ? progress.listening() : progress.published(LoadingState.Status(rawValue: step) ?? .idle)
            if ready { becameReady.append(index) }
        }
        #expect(becameReady == (readyAt.map { [$0] } ?? []))
        #expect(progress.isReady == (readyAt != nil))
    }

    @Test("the note of a failed reload comes first, until it is cleared")
    func statusNote() {
        var status = ServiceStatus(state: PublishedState(seq: 7, state: .loading), subscribers: 1)
        #expect(status.text == "loading · 1 subscriber · seq 7")
        status.note = "reload failed, previous configuration kept: bad"
        #expect(status.text == "reload failed, previous configuration kept: bad · loading · 1 subscriber · seq 7")
        status.state = PublishedState(seq: 8, state: .failure(StateError(.loadFailed, message: String(repeating: "x", count: 200))))
        status.note = nil
        #expect(status.text == "failure: " + String(repeating: "x", count: 79) + "… · 1 subscriber · seq 8", "long reasons are cut")
    }
}
