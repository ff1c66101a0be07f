public import DepotJSON

extension PipelineOperator {
    /// The operator as JSON: `op` first, then its members in a fixed order (statuses in their declared order).
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("op", .string(name))]
        switch self {
        case .statuses(let statuses):
            members.append(("in", .array(StateStatus.allCases.filter(statuses.contains).map { .string($0.rawValue) })))
        case .filter(let predicate):
            members.append(("where", predicate.json))
        case .select(let fields):
            members.append(("fields", .array(fields.map { .string($0.description) })))
        case .sort(let by, let descending):
            members += [("by", .string(by.description)), ("order", .string(descending ? "desc" : "asc"))]
        case .limit(let count):
            members.append(("count", .number(JSONNumber(count))))
        case .removeDuplicates:
            break
        case .throttle(let duration), .debounce(let duration), .delay(let duration):
            members.append(("seconds", .number(Self.seconds(duration))))
        }
        return .object(JSONObject(members))
    }

    /// A duration as a number of seconds, without trailing zeros (`1`, `0.25`).
    private static func seconds(_ duration: Duration) -> JSONNumber {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        guard nanoseconds != 0 else { return JSONNumber(Int(seconds)) }
        var fraction = String(nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return JSONNumber(literal: "\(seconds).\(fraction)") ?? JSONNumber(Int(seconds))
    }
}

extension Predicate {
    /// The predicate as JSON, as it is written: `{"field": …, TEST: …}`, `{"all": […]}`, `{"any": […]}`, `{"not": …}`.
    public var json: JSONValue {
        switch self {
        case .compare(let field, let comparison, let value): Self.test(field, comparison.rawValue, value)
        case .oneOf(let field, let values): Self.test(field, "in", .array(values))
        case .contains(let field, let value): Self.test(field, "contains", value)
        case .prefix(let field, let start): Self.test(field, "prefix", .string(start))
        case .exists(let field, let expected): Self.test(field, "exists", .bool(expected))
        case .all(let predicates): ["all": .array(predicates.map(\.json))]
        case .any(let predicates): ["any": .array(predicates.map(\.json))]
        case .not(let predicate): ["not": predicate.json]
        }
    }

    private static func test(_ field: JSONPointer, _ name: String, _ value: JSONValue) -> JSONValue {
        .object(JSONObject([("field", .string(field.description)), (name, value)]))
    }
}
