public import DepotJSON

/// One step of a pipeline, written as a JSON object tagged by `op`. Steps run in the order given: each passes
/// on, changes or holds back what the step before it gave.
public enum PipelineOperator: Sendable, Hashable {
    /// `{"op": "statuses", "in": [STATUS…]}`: only states with these statuses go on.
    case statuses(Set<StateStatus>)
    /// `{"op": "filter", "where": P}`: a success state keeps the items `where` matches.
    case filter(Predicate)
    /// `{"op": "select", "fields": [POINTER…]}`: each item keeps its id and these members (see `ItemProjection`).
    case select([JSONPointer])
    /// `{"op": "sort", "by": POINTER, "order": "asc"|"desc"}`: items ordered by a member (see `JSONOrder`);
    /// equal ones keep their order, items without the member come last either way.
    case sort(by: JSONPointer, descending: Bool)
    /// `{"op": "limit", "count": n}`: the first n items.
    case limit(Int)
    /// `{"op": "removeDuplicates"}`: a state whose result equals the last one sent is not sent.
    case removeDuplicates
    /// `{"op": "throttle", "seconds": s}`: at most one state per s; when several come, the latest goes out.
    case throttle(Duration)
    /// `{"op": "debounce", "seconds": s}`: a state goes out once none has followed it for s.
    case debounce(Duration)
    /// `{"op": "delay", "seconds": s}`: every state goes out s later, in order.
    case delay(Duration)

    /// The operators' names, as `op` spells them.
    public static let names = [
        "statuses", "filter", "select", "sort", "limit", "removeDuplicates", "throttle", "debounce", "delay",
    ]

    /// The name `op` gives this operator.
    public var name: String {
        switch self {
        case .statuses: "statuses"
        case .filter: "filter"
        case .select: "select"
        case .sort: "sort"
        case .limit: "limit"
        case .removeDuplicates: "removeDuplicates"
        case .throttle: "throttle"
        case .debounce: "debounce"
        case .delay: "delay"
        }
    }

    /// True for the operators that shape a success state's items (filter, select, sort, limit).
    public var shapesItems: Bool {
        switch self {
        case .filter, .select, .sort, .limit: true
        default: false
        }
    }

    /// True for the operators that decide when a state goes out, rather than what it holds.
    public var isTiming: Bool {
        switch self {
        case .throttle, .debounce, .delay: true
        default: false
        }
    }
}
