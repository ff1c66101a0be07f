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
