import DepotPostgresSource
import DepotTestSupport
import Testing

/// Every state of the link against every event: what a query may do, who is resumed or failed, what counts as a
/// loss, and that nothing happens after shut down.
@Suite("LinkStateMachine: the connection's life as a value")
struct LinkStateMachineTests {
    typealias Machine = LinkStateMachine<String, Int>

    @Test("connecting: queries wait, then run on the connection once it is up")
    func waitersResumed() {
        var machine = Machine()
        guard case .wait = machine.query(1), case .wait = machine.query(2) else {
            Issue.record("queries must wait for the first attempt")
            return
        }
        let resumed = machine.connected("c1")
        #expect(resumed == [1, 2])
        #expect(machine.isConnected)
        guard case .run(let connection) = machine.query(3) else {
            Issue.record("a query runs once connected")
            return
        }
        #expect(connection == "c1")
    }

    @Test("a failed attempt fails its waiters, is not a loss, and counts the failures in a row")
    func failedAttempts() {
        var machine = Machine()
        _ = machine.query(1)
        let first = machine.failed(reason: "refused")
        #expect(first?.waiters == [1])
        #expect(first?.failures == 1)
        #expect(first?.lost == false)
        guard case .fail(let reason) = machine.query(2) else {
            Issue.record("while waiting to retry, a query fails at once")
            return
        }
        #expect(reason == "refused")
        let retried = machine.retry()
        let second = machine.failed(reason: "refused again")
        #expect(retried && second?.failures == 2)
        let retriedAgain = machine.retry()
        let none = machine.connected("c")
        #expect(retriedAgain && none == [])
    }

    @Test("a loss after a connection is a loss, and starts a new run of failures")
    func loss() {
        var machine = Machine()
        _ = machine.failed(reason: "x")
        _ = machine.retry()
        _ = machine.connected("c")
        let loss = machine.failed(reason: "the server closed the connection")
        #expect(loss?.lost == true)
        #expect(loss?.failures == 0)
        #expect(loss?.waiters == [])
        #expect(!machine.isConnected)
    }

    @Test("a patient waiter waits through failed attempts and their delays, and is resumed by the next connection")
    func patientWaiter() {
        var machine = Machine()
        _ = machine.connected("c1")
        guard case .run(let connection) = machine.awaitConnection(1), connection == "c1" else {
            Issue.record("a patient waiter runs at once on a connection that is up")
            return
        }
        _ = machine.failed(reason: "lost")
        guard case .wait = machine.awaitConnection(2) else {
            Issue.record("while the link waits to retry, a patient waiter waits")
            return
        }
        guard case .fail = machine.query(3) else {
            Issue.record("an ordinary query still fails at once")
            return
        }
        _ = machine.retry()
        _ = machine.query(4)
        let failed = machine.failed(reason: "refused")
        #expect(failed?.waiters == [4], "the attempt's ordinary waiter fails; the patient one waits on")
        _ = machine.retry()
        #expect(machine.connected("c2") == [2])
    }

    @Test("shut down fails patient waiters, whether an attempt is under way or the link waits to retry")
    func shutDownPatient() {
        var connecting = Machine()
        _ = connecting.query(1)
        _ = connecting.awaitConnection(2)
        #expect(connecting.shutDown().waiters == [1, 2])

        var waiting = Machine()
        _ = waiting.failed(reason: "x")
        _ = waiting.awaitConnection(3)
        #expect(!waiting.isShutDown)
        #expect(waiting.shutDown().waiters == [3])
        #expect(waiting.isShutDown)
        guard case .fail = waiting.awaitConnection(4) else {
            Issue.record("no patient waiter after shut down")
            return
        }
    }

    @Test("shut down from each state: waiters failed, the connection handed back to close, nothing after")
    func shutDown() {
        var connecting = Machine()
        _ = connecting.query(7)
        let fromConnecting = connecting.shutDown()
        #expect(fromConnecting.waiters == [7] && fromConnecting.connection == nil)

        var connected = Machine()
        _ = connected.connected("c")
        let fromConnected = connected.shutDown()
        #expect(fromConnected.waiters == [] && fromConnected.connection == "c")
        let afterShutDown = connected.failed(reason: "closed")
        #expect(afterShutDown == nil, "a loss after shut down is nothing to act on")
        guard case .fail = connected.query(1) else {
            Issue.record("no query after shut down")
            return
        }

        var waiting = Machine()
        _ = waiting.failed(reason: "x")
        let fromWaiting = waiting.shutDown()
        let retriedAfterShutDown = waiting.retry()
        #expect(fromWaiting.connection == nil)
        #expect(!retriedAfterShutDown, "no attempt after shut down")

        var late = Machine()
        _ = late.shutDown()
        let madeLate = late.connected("c")
        #expect(madeLate == nil, "a connection made while shutting down is to be closed")
    }
}
