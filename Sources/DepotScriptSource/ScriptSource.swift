package import DepotCore
package import DepotJSON
import DepotPlatform
package import Logging

/// `--source script:FILE`: a source whose answer is the current step of a `StreamScript`, which `advance()` moves
/// on (its change feed does, at each step's time, then loads). A first step without a delay is the answer
/// from the start; before a delayed first step takes effect, the answer is an empty collection. A removal removes
/// the item from the current answer, until the next step.
package final class ScriptSource: WritableSource, ChangeFeedSource {
    package let path: String
    package let script: StreamScript
    /// The step answering now (nil before the first), and the ids removed from it since.
    private let playing = Locked<(step: Int?, removed: Set<String>)>((nil, []))
    private let idField: String

    /// Reads and checks the script at `path`; an error says where and what is wrong.
    package init(path: String, idField: String) throws(SourceError) {
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

    package var description: String { "script:\(path)" }

    /// How long after the step now answering the next one takes effect; nil when the stream is over (it does not
    /// repeat and the last step answers).
    package var nextDelay: Duration? {
        playing.withLock { playing in
            let next = (playing.step ?? -1) + 1
            if next < script.steps.count { return script.steps[next].delay }
            return script.repeats ? script.steps[0].delay : nil
        }
    }

    /// Moves to the next step (to the first again when the stream repeats); false when the stream is over.
    @discardableResult
    package func advance() -> Bool {
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

    package func fetchItems() async throws -> [JSONValue] {
        let (step, removed) = playing.withLock { $0 }
        guard let step else { return [] }
        return script.steps[step].items.filter { item in
            guard let id = Self.id(of: item, idField: idField) else { return true }
            return !removed.contains(id)
        }
    }

    /// Plays the stream: at each step's time moves on and loads, so every subscriber sees the step as a new state, as
    /// if the source had changed. The stream stops at its last step unless it repeats; a reload that makes a new script
    /// the source starts that one from its beginning (this one's feed is cancelled first).
    package func followChanges(into repository: Repository, clock: any Clock<Duration>, logger: Logger) async {
        logger.info("playing the stream \"\(script.name)\" (\(script.steps.count) steps\(script.repeats ? ", repeating" : ""))")
        while let delay = nextDelay {
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            guard advance() else { break }
            // Not a load that may join one already reading the step before.
            _ = await repository.loadAfterChange().result
        }
        logger.info("the stream \"\(script.name)\" is over; its last step stays")
    }

    /// Removals hide an item until the next step, as before; a put or patch is refused: a script replays recorded
    /// collections and has nowhere to keep a written item.
    package func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        guard changes.allSatisfy({ $0.write.item == nil }) else {
            throw SourceError(
                .unsupported,
                "\(description) replays recorded collections and cannot keep a put or patched item (it can remove one until its next step); serve the items from a file: or postgres:// source to write them"
            )
        }
        try playing.withLock { playing throws(SourceError) in
            guard let step = playing.step else { throw SourceError.notFound(id: changes.first?.id ?? "", in: description) }
            var removed = playing.removed
            for (index, change) in changes.enumerated() {
                let item = removed.contains(change.id) ? nil : script.steps[step].items.first { Self.id(of: $0, idField: idField) == change.id }
                guard let item else { throw SourceError.notFound(id: change.id, in: description) }
                if case .item(let expected) = change.expected {
                    let current = try? ItemCollection(values: [item], idField: idField).items.first
                    guard current?.json == expected.json else {
                        throw SourceError.conflict(index: index, change, current: current, in: description)
                    }
                }
                removed.insert(change.id)
            }
            playing.removed = removed
        }
        return SourceWriteResult(.applied)
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
