import DepotJSON
import DepotPlatform
import DepotRPC
import DepotTestSupport
import NIOCore
import Testing

// MARK: Context

/// The context the test methods run with: a log of what the handlers did, in the order they did it, and the
/// results they left pending, by tag.
final class Journal: Sendable {
    private let entries = Locked<[String]>([])
    private let results = Locked<[String: ManualResult]>([:])

    /// The pending result of the call tagged `tag`, made on first use.
    func result(_ tag: String) -> ManualResult {
        results.withLock { results in
            if let result = results[tag] { return result }
            let result = ManualResult()
            results[tag] = result
            return result
        }
    }

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var recorded: [String] {
        entries.withLock { $0 }
    }
}

typealias TestDispatcher = RPCDispatcher<Journal>
typealias TestMethod = RPCMethod<Journal>

extension Params {
    /// A required integer; the test methods' stand-in for a numeric accessor.
    func integer(_ name: String) throws(RPCError) -> Int {
        guard let value = members[name] else { throw .invalidParams("\(method) needs \"\(name)\"") }
        guard let integer = value.numberValue?.intValue else {
            throw .invalidParams("\"\(name)\" must be an integer, found \(value.jsonText)")
        }
        return integer
    }

    /// A required array of integers.
    func integers(_ name: String) throws(RPCError) -> [Int] {
        guard let value = members[name] else { throw .invalidParams("\(method) needs \"\(name)\"") }
        guard let elements = value.arrayValue else {
            throw .invalidParams("\"\(name)\" must be an array of integers, found \(value.jsonText)")
        }
        var integers: [Int] = []
        for element in elements {
            guard let integer = element.numberValue?.intValue else {
                throw .invalidParams("\"\(name)\" must be an array of integers, found \(value.jsonText)")
            }
            integers.append(integer)
        }
        return integers
    }
}

extension RPCReply {
    static func value(_ value: JSONValue) -> RPCReply { .result(.value(value)) }
}

/// A result a test delivers by hand: a method returns `pending`, the test calls `complete` when it chooses.
final class ManualResult: Sendable {
    private struct Waiting {
        var completion: PendingResult.Completion?
        var registrations = 0
        var withdrawals = 0
    }

    private let waiting = Locked(Waiting())

    var pending: PendingResult {
        PendingResult { completion in
            self.waiting.withLock {
                $0.completion = completion
                $0.registrations += 1
            }
            return Withdrawal {
                self.waiting.withLock {
                    $0.completion = nil
                    $0.withdrawals += 1
                }
            }
        }
    }

    /// Delivers the result to whoever registered and has not withdrawn.
    func complete(_ outcome: Result<ResultBody, RPCError>) {
        let completion = waiting.withLock { waiting in
            defer { waiting.completion = nil }
            return waiting.completion
        }
        completion?(outcome)
    }

    var registrations: Int { waiting.withLock(\.registrations) }
    var withdrawals: Int { waiting.withLock(\.withdrawals) }
}

/// What a pending line delivered: nothing yet, or the line (nil when it held only notifications).
final class LineReceiver: Sendable {
    private let received = Locked<[[UInt8]?]>([])

    /// Registers with `pending`; the withdrawal stops delivery.
    @discardableResult
    func receive(_ pending: PendingLine?) -> Withdrawal {
        pending?.whenReady { line in self.received.withLock { $0.append(line.map { $0.lineBytes() }) } } ?? .none
    }

    /// Every delivery so far.
    var deliveries: [[UInt8]?] { received.withLock { $0 } }
}

// MARK: Dispatching a line

/// Decodes `line` (without its newline) and dispatches it.
func dispatch(_ line: String, to dispatcher: TestDispatcher, context: Journal = Journal()) -> DispatchOutcome {
    dispatch(Array(line.utf8), to: dispatcher, context: context)
}

func dispatch(_ bytes: [UInt8], to dispatcher: TestDispatcher, context: Journal = Journal()) -> DispatchOutcome {
    dispatcher.dispatch(IncomingMessage.decode(bytes), context: context)
}

extension DispatchOutcome {
    /// `nothing`, `now` or `later`, for messages.
    var kind: String {
        switch self {
        case .nothing: "nothing"
        case .now: "now"
        case .later: "later"
        }
    }

    var isNothing: Bool {
        if case .nothing = self { return true }
        return false
    }

    /// The bytes of a `.now` line (newline included), or nil with a recorded issue.
    func immediateLine(sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        guard case .now(let message) = self else {
            Issue.record("expected a response line now, got .\(kind)", sourceLocation: sourceLocation)
            return nil
        }
        return message.lineBytes()
    }

    /// The pending line of a `.later` outcome; nil with a recorded issue for any other outcome.
    func pendingLine(sourceLocation: SourceLocation = #_sourceLocation) -> PendingLine? {
        guard case .later(let pending) = self else {
            Issue.record("expected a response later, got .\(kind)", sourceLocation: sourceLocation)
            return nil
        }
        return pending
    }
}

// MARK: Checking a line

/// Checks that `line` means what the JSON-RPC 2.0 spec's example response says, ignoring member order and the
/// wording of error messages (the spec's are generic, ours say what was wrong).
func expectSpecResponse(_ line: [UInt8]?, matches spec: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let line else { return }
    guard let actual = parseJSON(line.dropLast(), sourceLocation: sourceLocation),
        let wanted = parseJSON(Array(spec.utf8), sourceLocation: sourceLocation)
    else { return }
    #expect(specShape(actual) == specShape(wanted), sourceLocation: sourceLocation)
}

/// Members sorted by key, and error objects without their message.
func specShape(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements):
        return .array(elements.map(specShape))
    case .object(let object):
        let members = object.members
            .map { member -> JSONObject.Member in
                if member.key == "error", case .object(var error) = member.value {
                    error["message"] = nil
                    return JSONObject.Member(key: member.key, value: specShape(.object(error)))
                }
                return JSONObject.Member(key: member.key, value: specShape(member.value))
            }
            .sorted { $0.key < $1.key }
        return .object(JSONObject(members))
    default:
        return value
    }
}

// MARK: Buffers

func buffer(_ string: String) -> ByteBuffer {
    ByteBuffer(string: string)
}

func buffer(_ bytes: [UInt8]) -> ByteBuffer {
    ByteBuffer(bytes: bytes)
}

func bytes(of buffer: ByteBuffer) -> [UInt8] {
    Array(buffer.readableBytesView)
}

/// Whether two buffers' readable bytes are the same memory (a shared buffer, not a copy).
func sameStorage(_ a: ByteBuffer, _ b: ByteBuffer) -> Bool {
    a.withUnsafeReadableBytes { first in
        b.withUnsafeReadableBytes { second in
            first.baseAddress == second.baseAddress && first.count == second.count
        }
    }
}
