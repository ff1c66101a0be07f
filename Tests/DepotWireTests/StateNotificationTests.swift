import DepotJSON
import DepotTestSupport
import DepotWire
import NIOCore
import Testing

@Suite("StateNotification: prefix + shared state + suffix make one notification line")
struct StateNotificationTests {
    static let state = #"{"phase":"ready","items":[{"id":"a","n":1.50}]}"#

    /// prefix, state and suffix as one line.
    func line(prefix: ByteBuffer) -> [UInt8] {
        Array(prefix.readableBytesView) + Array(Self.state.utf8) + Array(StateNotification.suffix.readableBytesView)
    }

    @Test func notificationWithSkippedStates() {
        expectLine(
            line(prefix: StateNotification.prefix(subscription: "s1", skipped: 3)),
            is:
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","skipped":3,"state":{"phase":"ready","items":[{"id":"a","n":1.50}]}}}"#
        )
    }

    @Test("skipped is left out when nothing was skipped", arguments: [0, -1] as [Int?] + [nil])
    func notificationWithoutSkipped(skipped: Int?) {
        let prefix =
            skipped.map { StateNotification.prefix(subscription: "s1", skipped: $0) }
            ?? StateNotification.prefix(subscription: "s1")
        expectLine(
            line(prefix: prefix),
            is: #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"phase":"ready","items":[{"id":"a","n":1.50}]}}}"#
        )
    }

    @Test func subscriptionNameIsEscaped() {
        expectLine(
            line(prefix: StateNotification.prefix(subscription: "s\"1\n", skipped: 12)),
            is:
                #"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s\"1\n","skipped":12,"state":{"phase":"ready","items":[{"id":"a","n":1.50}]}}}"#
        )
    }

    @Test func suffixClosesParamsAndNotificationAndEndsTheLine() {
        #expect(text(Array(StateNotification.suffix.readableBytesView)) == "}}\n")
    }

    @Test func methodNameIsTheProtocolsNotificationName() throws {
        let value = try #require(parseJSON(line(prefix: StateNotification.prefix(subscription: "s")).dropLast()))
        #expect(value["method"] == .string(StateNotification.method))
        #expect(value["id"] == nil, "a notification has no id")
    }
}
