import DepotJSON
import DepotRPC
import DepotTestSupport
import NIOCore
import Synchronization
import Testing

// MARK: Context

/// The context the test methods run with: a log of what the handlers did, in the order they did it.
final class Journal: Sendable {
    private let entries = Mutex<[String]>([])

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

    /// Awaits a `.later` outcome: nil with a recorded issue when it was not `.later`; `.some(nil)` when the
    /// deferred work produced no line (only notifications).
    func laterLine(sourceLocation: SourceLocation = #_sourceLocation) async -> [UInt8]?? {
        guard case .later(let wait) = self else {
            Issue.record("expected a deferred response, got .\(kind)", sourceLocation: sourceLocation)
            return nil
        }
        guard let message = await wait() else { return .some(nil) }
        return .some(message.lineBytes())
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
