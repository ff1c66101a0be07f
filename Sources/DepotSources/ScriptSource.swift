public import DepotCore
public import DepotJSON
import DepotPlatform

/// `--source script:FILE`: a source whose answer is the current step of a `StreamScript`, which `advance()` moves
/// on (the daemon's player calls it at each step's time, then loads). A first step without a delay is the answer
/// from the start; before a delayed first step takes effect, the answer is an empty collection. A removal removes
/// the item from the current answer, until the next step.
public final class ScriptSource: Source {
    public let path: String
    public let script: StreamScript
    /// The step answering now (nil before the first), and the ids removed from it since.
    private let playing = Locked<(step: Int?, removed: Set<String>)>((nil, []))
    private let idField: String

    /// Reads and checks the script at `path`; an error says where and what is wrong.
    public init(path: String, idField: String) throws(SourceError) {
        self.path = path
        self.idField = idField
        let bytes: [UInt8]
        do {
            bytes = try Files.readAll(path)
        } catch {
            throw SourceError(.unavailable, "cannot read the stream script \(path): \(error)")
        }
        do {
            script = try StreamScript(decoding: try JSONParser.parse(bytes), idField: idField)
        } catch let problem as StreamScript.Problem {
            throw SourceError(.invalidData, "the stream script \(path): \(problem)")
        } catch {
            throw SourceError(.invalidData, "the stream script \(path) is not JSON: \(error)")
        }
        if script.steps[0].delay == .zero {
            playing.withLock { $0.step = 0 }
        }
    }

    public var description: String { "script:\(path)" }

    /// How long after the step now answering the next one takes effect; nil when the stream is over (it does not
    /// repeat and the last step answers).
    public var nextDelay: Duration? {
        playing.withLock { playing in
            let next = (playing.step ?? -1) + 1
            if next < script.steps.count { return script.steps[next].delay }
            return script.repeats ? script.steps[0].delay : nil
        }
    }

    /// Moves to the next step (to the first again when the stream repeats); false when the stream is over.
    @discardableResult
    public func advance() -> Bool {
        playing.withLock { playing in
            var next = (playing.step ?? -1) + 1
            if next >= script.steps.count {
                guard script.repeats else { return false }
                next = 0
            }
            playing = (next, [])
            return true
        }
    }

    public func fetchItems() async throws -> [JSONValue] {
        let (step, removed) = playing.withLock { $0 }
        guard let step else { return [] }
        return script.steps[step].items.filter { item in
            guard let id = Self.id(of: item, idField: idField) else { return true }
            return !removed.contains(id)
        }
    }

    public func deleteItem(id: String) async throws -> SourceDeletion {
        try playing.withLock { playing throws(SourceError) in
            guard let step = playing.step, !playing.removed.contains(id),
                script.steps[step].items.contains(where: { Self.id(of: $0, idField: idField) == id })
            else { throw SourceError.notFound(id: id, in: description) }
            playing.removed.insert(id)
            return .removed
        }
    }

    /// An item's id as the repository reads it: a string, or an integer's literal.
    private static func id(of item: JSONValue, idField: String) -> String? {
        switch item[idField] {
        case .string(let id)?: id
        case .number(let number)? where number.isInteger: number.literal
        default: nil
        }
    }
}
