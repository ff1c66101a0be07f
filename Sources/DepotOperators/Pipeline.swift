public import DepotJSON

/// A list of operators, as a subscription, `get` or `state` gives it, or as the daemon keeps it by name.
///
/// Decoded from JSON strictly (an unknown operator or member is an error naming where it is), and encoded back
/// in one canonical form, which is also the key under which subscribers with equal pipelines share one
/// evaluation.
public struct Pipeline: Sendable, Hashable {
    public let operators: [PipelineOperator]

    /// The most operators one pipeline may have.
    public static let maxOperators = 32
    /// The deepest nesting of `all`, `any` and `not` a predicate may have.
    public static let maxPredicateDepth = 16
    /// The longest `throttle`, `debounce` or `delay`, in seconds (a day).
    public static let maxSeconds = 86_400.0

    public init(_ operators: [PipelineOperator]) {
        self.operators = operators
    }

    /// True when the pipeline passes every state through unchanged.
    public var isEmpty: Bool { operators.isEmpty }

    /// Decodes `value`, a JSON array of operators.
    public init(decoding value: JSONValue) throws(PipelineError) {
        guard case .array(let elements) = value else {
            throw PipelineError(index: nil, pointer: .root, reason: "a pipeline is an array of operators, not \(value.typeNameWithArticle)")
        }
        guard elements.count <= Self.maxOperators else {
            throw PipelineError(
                index: nil, pointer: .root, reason: "a pipeline has at most \(Self.maxOperators) operators; this one has \(elements.count)")
        }
        var operators: [PipelineOperator] = []
        for (index, element) in elements.enumerated() {
            let decoder = OperatorDecoder(index: index)
            operators.append(try decoder.decode(element))
        }
        self.init(operators)
    }

    /// The pipeline as JSON, in canonical form: each operator's `op` first, then its members in a fixed order.
    public var json: JSONValue {
        .array(operators.map(\.json))
    }

    /// The canonical JSON text: equal for pipelines that are written alike.
    public var key: String {
        json.jsonText
    }
}

/// Decodes one operator, naming the operator's index and the path inside it in every error.
private struct OperatorDecoder {
    let index: Int

    func fail(_ path: [String], _ reason: String) -> PipelineError {
        PipelineError(index: index, pointer: JSONPointer(tokens: [String(index)] + path), reason: reason)
    }

    func decode(_ value: JSONValue) throws(PipelineError) -> PipelineOperator {
        guard case .object(let object) = value else {
            throw fail([], "an operator is an object such as {\"op\": \"filter\", \"where\": …}, not \(value.typeNameWithArticle)")
        }
        guard let op = object.member(named: "op") else {
            throw fail([], "the operator has no \"op\"; it is one of \(PipelineOperator.names.joined(separator: ", "))")
        }
        guard case .string(let name) = op, PipelineOperator.names.contains(name) else {
            throw fail(["op"], "unknown operator \(op.jsonText); it is one of \(PipelineOperator.names.joined(separator: ", "))")
        }
        let members = object.effectiveMembers
        func allow(_ names: [String]) throws(PipelineError) {
            for member in members where member.key != "op" && !names.contains(member.key) {
                let takes = names.isEmpty ? "it takes no other member" : "it takes " + names.map { "\"\($0)\"" }.joined(separator: ", ")
                throw fail([member.key], "\(name) has no member \"\(member.key)\"; \(takes)")
            }
        }
        func required(_ member: String) throws(PipelineError) -> JSONValue {
            guard let value = object.member(named: member) else { throw fail([], "\(name) needs \"\(member)\"") }
            return value
        }
        switch name {
        case "statuses":
            try allow(["in"])
            return .statuses(try statuses(try required("in")))
        case "filter":
            try allow(["where"])
            return .filter(try PredicateDecoder(fail: { self.fail(["where"] + $0, $1) }).decode(try required("where"), path: [], depth: 0))
        case "select":
            try allow(["fields"])
            return .select(try fields(try required("fields")))
        case "sort":
            try allow(["by", "order"])
            let by = try pointer(try required("by"), path: ["by"])
            switch object.member(named: "order") {
            case nil, .string("asc")?: return .sort(by: by, descending: false)
            case .string("desc")?: return .sort(by: by, descending: true)
            case let other?: throw fail(["order"], "order is \"asc\" or \"desc\", not \(other.jsonText)")
            }
        case "limit":
            try allow(["count"])
            let count = try required("count")
            guard case .number(let number) = count, let value = number.intValue, value >= 0 else {
                throw fail(["count"], "count is a whole number, 0 or more, not \(count.jsonText)")
            }
            return .limit(value)
        case "removeDuplicates":
            try allow([])
            return .removeDuplicates
        default:
            try allow(["seconds"])
            let seconds = try required("seconds")
            let range = 0.001...Pipeline.maxSeconds
            guard case .number(let number) = seconds, range.contains(number.doubleValue) else {
                throw fail(["seconds"], "seconds is a number from \(range.lowerBound) to \(Int(range.upperBound)), not \(seconds.jsonText)")
            }
            let duration = Duration.nanoseconds(Int64((number.doubleValue * 1e9).rounded()))
            return name == "throttle" ? .throttle(duration) : name == "debounce" ? .debounce(duration) : .delay(duration)
        }
    }

    private func statuses(_ value: JSONValue) throws(PipelineError) -> Set<StateStatus> {
        let names = StateStatus.allCases.map(\.rawValue)
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw fail(["in"], "in is a non-empty array of statuses (\(names.joined(separator: ", ")))")
        }
        var result: Set<StateStatus> = []
        for (position, element) in elements.enumerated() {
            guard case .string(let text) = element, let status = StateStatus(rawValue: text) else {
                throw fail(["in", String(position)], "\(element.jsonText) is not a status; a status is one of \(names.joined(separator: ", "))")
            }
            result.insert(status)
        }
        return result
    }

    private func fields(_ value: JSONValue) throws(PipelineError) -> [JSONPointer] {
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw fail(["fields"], "fields is a non-empty array of JSON Pointers such as \"/name\"")
        }
        var result: [JSONPointer] = []
        for (position, element) in elements.enumerated() {
            let field = try pointer(element, path: ["fields", String(position)])
            guard !field.tokens.isEmpty else {
                throw fail(["fields", String(position)], "\"\" is the whole item; name a member, such as \"/name\"")
            }
            result.append(field)
        }
        return result
    }

    private func pointer(_ value: JSONValue, path: [String]) throws(PipelineError) -> JSONPointer {
        try PredicateDecoder(fail: fail).pointer(value, path: path)
    }
}

/// Decodes a predicate; `fail` makes an error at a path inside it.
private struct PredicateDecoder {
    let fail: ([String], String) -> PipelineError

    static let combinators = ["all", "any", "not"]
    static let tests = Predicate.Comparison.allCases.map(\.rawValue) + ["in", "contains", "prefix", "exists"]

    func decode(_ value: JSONValue, path: [String], depth: Int) throws(PipelineError) -> Predicate {
        guard case .object(let object) = value else {
            throw fail(path, "a predicate is an object such as {\"field\": \"/type\", \"eq\": \"fire\"}, not \(value.typeNameWithArticle)")
        }
        let members = object.effectiveMembers
        guard members.count == (members.contains { $0.key == "field" } ? 2 : 1) else {
            throw fail(
                path,
                "a predicate is {\"field\": POINTER, TEST: VALUE} with one TEST (\(Self.tests.joined(separator: ", "))), or one of {\"all\": […]}, {\"any\": […]}, {\"not\": …}"
            )
        }
        if let field = object.member(named: "field") {
            let pointer = try pointer(field, path: path + ["field"])
            guard let test = members.first(where: { $0.key != "field" }), Self.tests.contains(test.key) else {
                let other = members.first { $0.key != "field" }?.key ?? ""
                throw fail(path + [other], "\"\(other)\" is not a test; a test is one of \(Self.tests.joined(separator: ", "))")
            }
            return try fieldTest(pointer, test.key, test.value, path: path + [test.key])
        }
        let member = members[0]
        guard Self.combinators.contains(member.key) else {
            throw fail(
                path + [member.key],
                "\"\(member.key)\" is not a predicate; write {\"field\": POINTER, TEST: VALUE}, {\"all\": […]}, {\"any\": […]} or {\"not\": …}")
        }
        guard depth < Pipeline.maxPredicateDepth else {
            throw fail(path, "predicates nest at most \(Pipeline.maxPredicateDepth) deep")
        }
        if member.key == "not" {
            return .not(try decode(member.value, path: path + ["not"], depth: depth + 1))
        }
        guard case .array(let elements) = member.value else {
            throw fail(path + [member.key], "\(member.key) takes an array of predicates, not \(member.value.typeNameWithArticle)")
        }
        var predicates: [Predicate] = []
        for (position, element) in elements.enumerated() {
            predicates.append(try decode(element, path: path + [member.key, String(position)], depth: depth + 1))
        }
        return member.key == "all" ? .all(predicates) : .any(predicates)
    }

    private func fieldTest(_ field: JSONPointer, _ test: String, _ value: JSONValue, path: [String]) throws(PipelineError) -> Predicate {
        switch test {
        case "in":
            guard case .array(let values) = value else { throw fail(path, "in takes an array of values, not \(value.typeNameWithArticle)") }
            return .oneOf(field, values)
        case "contains":
            return .contains(field, value)
        case "prefix":
            guard case .string(let start) = value else { throw fail(path, "prefix takes a string, not \(value.typeNameWithArticle)") }
            return .prefix(field, start)
        case "exists":
            guard case .bool(let expected) = value else { throw fail(path, "exists takes true or false, not \(value.jsonText)") }
            return .exists(field, expected)
        default:
            guard let comparison = Predicate.Comparison(rawValue: test) else { throw fail(path, "\"\(test)\" is not a test") }
            if comparison != .eq, comparison != .ne {
                switch value {
                case .number, .string: break
                default: throw fail(path, "\(test) compares numbers or strings, not \(value.typeNameWithArticle)")
                }
            }
            return .compare(field, comparison, value)
        }
    }

    func pointer(_ value: JSONValue, path: [String]) throws(PipelineError) -> JSONPointer {
        guard case .string(let text) = value, let pointer = JSONPointer(parsing: text) else {
            throw fail(path, "\(value.jsonText) is not a JSON Pointer; write \"/name\" for a member, \"/stats/hp\" for one inside another")
        }
        return pointer
    }
}
