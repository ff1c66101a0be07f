import ArgumentParser
import DepotJSON
import DepotOperators
import DepotWire

/// The options that give a command a pipeline: `--pipeline` (a named one, or operators as JSON), or the short
/// syntax for the common operators, compiled in this order: statuses, where (all of them), select, sort, limit,
/// distinct, throttle, debounce, delay. `--print-pipeline` prints the operators as JSON instead of running.
struct PipelineOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A named pipeline, or operators as a JSON array.", valueName: "name-or-json"))
    var pipeline: String?

    @Option(help: ArgumentHelp("Only states with these statuses (idle, loading, success, failure).", valueName: "list"))
    var statuses: String?

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "Keep the items that match: POINTER TEST VALUE, TEST one of == != < <= > >= in contains prefix, or POINTER exists|missing. Repeat to require all.",
            valueName: "condition"))
    var conditions: [String] = []

    @Option(help: ArgumentHelp("Keep these members of each item (and its id).", valueName: "pointers"))
    var select: String?

    @Option(help: ArgumentHelp("Order the items by a member; add :desc for descending.", valueName: "pointer[:desc]"))
    var sort: String?

    @Option(help: "Keep the first N items.")
    var limit: Int?

    @Flag(help: "Do not send a state whose result equals the last one sent (removeDuplicates).")
    var distinct = false

    @Option(help: ArgumentHelp("At most one state per interval, the latest.", valueName: "duration"))
    var throttle: String?

    @Option(help: ArgumentHelp("A state once none has followed it for this long.", valueName: "duration"))
    var debounce: String?

    @Option(help: ArgumentHelp("Every state this much later.", valueName: "duration"))
    var delay: String?

    @Flag(help: "Print the pipeline as JSON operators and exit, without connecting.")
    var printPipeline = false

    /// Checks the options before anything runs, so a mistake is a usage error of the command it was given to.
    func validate() throws {
        _ = try reference()
    }

    /// True when any short-syntax option is given.
    private var hasShorthand: Bool {
        statuses != nil || !conditions.isEmpty || select != nil || sort != nil || limit != nil || distinct || throttle != nil
            || debounce != nil || delay != nil
    }

    /// The pipeline the options give; nil for none. A usage error (exit 64) names what is wrong.
    func reference() throws -> PipelineReference? {
        if let pipeline {
            guard !hasShorthand else {
                throw ValidationError("--pipeline and the short options (--where, --select, …) do not mix; give one or the other")
            }
            guard pipeline.hasPrefix("[") else {
                if let problem = NamedPipeline.problem(withName: pipeline) { throw ValidationError("--pipeline \"\(pipeline)\": \(problem)") }
                return .named(pipeline)
            }
            return .operators(try Self.decode(pipeline, what: "--pipeline"))
        }
        guard hasShorthand else { return nil }
        return .operators(try compiled())
    }

    /// The short options as a pipeline.
    func compiled() throws -> Pipeline {
        var operators: [JSONValue] = []
        do {
            if let statuses {
                operators.append(["op": "statuses", "in": .array(statuses.split(separator: ",").map { .string(String($0)) })])
            }
            let predicates = try conditions.map { text throws(PipelineShorthand.Problem) in try PipelineShorthand.predicate(text) }
            if predicates.count == 1 {
                operators.append(["op": "filter", "where": predicates[0]])
            } else if predicates.count > 1 {
                operators.append(["op": "filter", "where": ["all": .array(predicates)]])
            }
            if let select {
                operators.append(["op": "select", "fields": .array(select.split(separator: ",").map { .string(String($0)) })])
            }
            if let sort {
                let descending = sort.hasSuffix(":desc")
                let by = String(sort.dropLast(descending ? 5 : (sort.hasSuffix(":asc") ? 4 : 0)))
                operators.append(["op": "sort", "by": .string(by), "order": .string(descending ? "desc" : "asc")])
            }
            if let limit { operators.append(["op": "limit", "count": .number(JSONNumber(limit))]) }
            if distinct { operators.append(["op": "removeDuplicates"]) }
            for (name, value) in [("throttle", throttle), ("debounce", debounce), ("delay", delay)] {
                if let value { operators.append(["op": .string(name), "seconds": try PipelineShorthand.seconds(value, option: "--" + name)]) }
            }
        } catch {
            throw ValidationError(error.description)
        }
        return try Self.decode(JSONValue.array(operators).jsonText, what: "the short options")
    }

    /// `text` as a pipeline; a usage error names the operator and what is wrong.
    static func decode(_ text: String, what: String) throws -> Pipeline {
        do {
            return try Pipeline(decoding: try JSONParser.parse(Array(text.utf8)))
        } catch let error as PipelineError {
            throw ValidationError("\(what): \(error)")
        } catch {
            throw ValidationError("\(what) is not JSON: \(error)")
        }
    }
}
