import Foundation

/// depotd, started on a generated collection in a file source (`--source file:…`, `--no-initial-load`).
///
/// Its fan-out trigger is `load` by default: depotd publishes `loading`, reads and parses the file, and
/// publishes `success` with the N items, the state measured. (An optimistic `remove` would publish its state
/// before touching the file, but then rewrites the file and publishes a second state of N items while the first
/// is still being fanned out, so every round would carry two large states instead of one.) The subscription
/// scenarios (issue 13) trigger an optimistic removal instead, with subscribers in one mode: the measured state
/// is the optimistic one; the round ends once the source's confirmation is published too.
public final class DepotdUnderTest: SystemUnderTest {
    /// What starts a fan-out round.
    public enum Trigger: Sendable {
        /// `load`: loading (seq + 1), then success (seq + 2), the one measured.
        case load
        /// `remove` with `optimistic: true` of the next id: the optimistic state (seq + 1) measured, the confirmed
        /// one (seq + 2) ending the round.
        case optimisticRemoval
        /// `put` with `optimistic: true` of the next id, a new item of the collection's item size in its place: as a
        /// removal, the optimistic state measured and the confirmed one ending the round.
        case optimisticPut
        /// `patch` with `optimistic: true` of the next id (a merge patch of one member), likewise.
        case optimisticPatch
    }

    public let name: String
    public let process: ManagedProcess
    public let socketPath: String
    public let framing = Framing.lines
    public let subscribeMessage: [UInt8]
    /// Subscriber i of a fan-out subscribes through pipeline i modulo their count; empty for none.
    private let pipelineMessages: [[UInt8]]
    public var subscribedSeq: Int? { seq }

    private let collection: BenchCollection
    private let itemsPath: String
    private let control: ControlConnection
    private let roundTrigger: Trigger
    private var seq = 0
    /// The id the next optimistic removal removes.
    private var nextID = 1

    /// Starts depotd; `binary` is the depotd executable. `mode`, when given, is the subscribers' `subscribe` mode,
    /// and names the system "depotd MODE" (unless `name` names it).
    public init(
        binary: String, directory: String, collection: BenchCollection, extraArguments: [String] = [], environment: [String: String] = [:],
        mode: String? = nil, trigger: Trigger = .load, pipelines: [String] = [], name: String? = nil
    ) throws {
        self.name = name ?? (mode.map { "depotd \($0)" } ?? "depotd") + (pipelines.isEmpty ? "" : ", \(pipelines.count) pipelines")
        let subscribe = mode.map { #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"mode":"\#($0)"}}"# }
        subscribeMessage = Array((subscribe ?? #"{"jsonrpc":"2.0","id":1,"method":"subscribe"}"#).utf8) + [0x0A]
        pipelineMessages = pipelines.map { pipeline in
            let params = (mode.map { #""mode":"\#($0)","# } ?? "") + #""pipeline":\#(pipeline)"#
            return Array(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{\#(params)}}"#.utf8) + [0x0A]
        }
        roundTrigger = trigger
        self.collection = collection
        socketPath = directory + "/depotd.sock"
        itemsPath = directory + "/items.json"
        try collection.write(to: itemsPath, ids: 1..<1)
        process = try ManagedProcess.launch(
            "depotd",
            executable: binary,
            arguments: ["--socket", socketPath, "--source", "file:" + itemsPath, "--no-initial-load", "--no-cache", "--log-level", "warning"]
                + extraArguments,
            environment: environment
        )
        _ = try process.waitUntilAccepting(socketPath)
        control = try ControlConnection(path: socketPath, framing: .lines)
    }

    public func subscribeMessage(subscriber index: Int) -> [UInt8] {
        pipelineMessages.isEmpty ? subscribeMessage : pipelineMessages[index % pipelineMessages.count]
    }

    public func prepare(items: Int) throws {
        try collection.write(to: itemsPath, ids: 1..<(items + 1))
        seq = try load()
        nextID = 1
    }

    /// Both triggers publish two states: the measured one is the second for `load`, the first for a removal.
    public func prepareRound(items: Int, tracker: SubscriberTracker, subscribers: Int) throws -> (measured: Int, settled: Int) {
        switch roundTrigger {
        case .load: (seq + 2, seq + 2)
        case .optimisticRemoval, .optimisticPut, .optimisticPatch: (seq + 1, seq + 2)
        }
    }

    public func trigger() throws {
        switch roundTrigger {
        case .load:
            try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"load"}"#)
        case .optimisticRemoval:
            try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"remove","params":{"id":\#(nextID),"optimistic":true}}"#)
            nextID += 1
        case .optimisticPut:
            // The collection's item for this id with its name changed: the same size, so the file's size holds.
            var item = String(decoding: BenchCollection.item(id: nextID, bytes: collection.items[nextID - 1].count), as: UTF8.self)
            item = item.replacingOccurrences(of: #""name":"item "#, with: #""name":"ITEM "#)
            try control.send(line: #"{"jsonrpc":"2.0","id":1,"method":"put","params":{"id":\#(nextID),"item":\#(item),"optimistic":true}}"#)
            nextID += 1
        case .optimisticPatch:
            try control.send(
                line: #"{"jsonrpc":"2.0","id":1,"method":"patch","params":{"id":\#(nextID),"patch":{"name":"patched \#(nextID)"},"optimistic":true}}"#
            )
            nextID += 1
        }
    }

    public func finishRound() throws {
        let (answer, head) = try control.receive()
        guard !answer.isError, let answered = answer.seq else {
            throw BenchError("\(name) answered its trigger with \(String(decoding: head, as: UTF8.self))…")
        }
        seq = answered
    }

    public func request(_ method: RPCMethodUnderTest) -> [UInt8] {
        switch method {
        case .state: Array(#"{"jsonrpc":"2.0","id":1,"method":"state"}"#.utf8) + [0x0A]
        case .get: Array(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"id":1}}"#.utf8) + [0x0A]
        }
    }

    /// Sends `load` and returns the seq of the state it published.
    @discardableResult
    public func load() throws -> Int {
        guard let loaded = try control.call(#"{"jsonrpc":"2.0","id":1,"method":"load"}"#) else {
            throw BenchError("depotd's answer to load carried no state")
        }
        seq = loaded
        return loaded
    }

    /// The control connection, for scenarios that pipeline their own requests.
    public var controlConnection: ControlConnection { control }
    public var currentSeq: Int { seq }

    /// Records the seq of the newest state, for scenarios that pipeline their own requests.
    func noteSeq(_ newest: Int) {
        seq = newest
    }
}
