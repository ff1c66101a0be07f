import DepotCore
package import DepotJSON
import DepotOperators
import DepotPipeline
import Foundation

/// A stored stream of collections, played by `--source script:FILE`: the idea's own example of operators as data.
///
/// `{"name", "description"?, "stream": [{"value": [item…], "operators": [operator…]?}…], "repeat"?: bool}`. Each
/// step's collection becomes the source's answer once its `delay` operators have passed (from the step before),
/// shaped by its filter, select, sort and limit operators; the daemon publishes it as if loaded. The stream plays
/// once from start-up and stays at its last step, or loops with `"repeat": true`.
package struct StreamScript: Sendable, Equatable {
    /// One step: its items as the source answers them, and how long after the step before it takes effect.
    package struct Step: Sendable, Equatable {
        package let items: [JSONValue]
        package let delay: Duration
    }

    package let name: String
    package let description: String?
    package let steps: [Step]
    package let repeats: Bool

    /// Why a script cannot be played: where in the file, and what is wrong.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Decodes a script; items are read with `idField`, as a loaded collection's are.
    package init(decoding value: JSONValue, idField: String) throws(Problem) {
        guard case .object(let object) = value else {
            throw Problem(description: "a stream script is an object {\"name\", \"description\", \"stream\": […], \"repeat\"}")
        }
        for member in object.effectiveMembers where !["name", "description", "stream", "repeat"].contains(member.key) {
            throw Problem(description: "unknown member \"\(member.key)\"; a stream script has name, description, stream and repeat")
        }
        guard case .string(let name)? = object.member(named: "name") else { throw Problem(description: "\"name\" is required, a string") }
        self.name = name
        self.description = object.member(named: "description")?.stringValue
        switch object.member(named: "repeat") {
        case nil, .bool(false)?: repeats = false
        case .bool(true)?: repeats = true
        case let other?: throw Problem(description: "\"repeat\" is true or false, not \(other.jsonText)")
        }
        guard case .array(let elements)? = object.member(named: "stream"), !elements.isEmpty else {
            throw Problem(description: "\"stream\" is required, a non-empty array of steps {\"value\": […], \"operators\": […]}")
        }
        var steps: [Step] = []
        for (index, element) in elements.enumerated() {
            steps.append(try Self.step(element, at: index, idField: idField))
        }
        self.steps = steps
    }

    private static func step(_ value: JSONValue, at index: Int, idField: String) throws(Problem) -> Step {
        func fail(_ reason: String) -> Problem { Problem(description: "stream step \(index): \(reason)") }
        guard case .object(let object) = value else { throw fail("a step is an object {\"value\": […], \"operators\": […]}") }
        for member in object.effectiveMembers where !["value", "operators"].contains(member.key) {
            throw fail("unknown member \"\(member.key)\"; a step has value and operators")
        }
        guard case .array(let values)? = object.member(named: "value") else { throw fail("\"value\" is required, the collection: an array of items") }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(decoding: object.member(named: "operators") ?? .array([]))
        } catch {
            throw fail("operators: \(error)")
        }
        var delay = Duration.zero
        for (position, op) in pipeline.operators.enumerated() {
            switch op {
            case .delay(let seconds): delay += seconds
            case .filter, .select, .sort, .limit: break
            default: throw fail("operator \(position) (\(op.name)) does not apply to a step; a step takes delay, filter, select, sort and limit")
            }
        }
        let collection: ItemCollection
        do {
            collection = try ItemCollection(values: values, idField: idField)
        } catch {
            throw fail("value: \(error)")
        }
        let shaped = PipelineRun.shapeItems(
            of: PublishedState(seq: 0, state: .success(collection, Provenance(origin: .source, fetchedAt: .distantPast))), through: pipeline,
            idField: idField)
        var items: [JSONValue] = []
        for item in shaped.state.items?.items ?? [] {
            guard let value = try? item.value else { continue }
            items.append(value)
        }
        return Step(items: items, delay: delay)
    }
}
