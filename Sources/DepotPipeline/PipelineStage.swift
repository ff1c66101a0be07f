import DepotCore
import DepotOperators

/// One stage of a running pipeline: an operator (or a run of item operators) with what it remembers.
///
/// A value-type state machine: `receive` takes a state at an instant and returns what comes out at once;
/// `advance` returns what a timer due by then lets out. Time is a parameter, never read from a clock here,
/// so every timing rule is tested with instants chosen by the test.
enum PipelineStage {
    typealias Instant = ContinuousClock.Instant

    case statuses(Set<StateStatus>)
    case items(ItemTransform)
    case sort(ItemSort)
    case limit(Int, last: (input: ItemCollection, output: ItemCollection)?)
    case removeDuplicates(last: LoadingState?)
    case throttle(Duration, lastSent: Instant?, waiting: PublishedState?)
    case debounce(Duration, waiting: (state: PublishedState, due: Instant)?)
    case delay(Duration, waiting: [(state: PublishedState, due: Instant)])

    /// The stages for `operators`: consecutive `filter` and `select` operators become one item stage.
    static func stages(for operators: [PipelineOperator], idField: String) -> [PipelineStage] {
        var stages: [PipelineStage] = []
        var steps: [ItemTransform.Step] = []
        func flushSteps() {
            if !steps.isEmpty { stages.append(.items(ItemTransform(steps: steps))) }
            steps = []
        }
        for op in operators {
            switch op {
            case .filter(let predicate):
                steps.append(.filter(predicate))
                continue
            case .select(let fields):
                steps.append(.select(ItemProjection(fields: fields, idField: idField)))
                continue
            default:
                flushSteps()
            }
            switch op {
            case .statuses(let statuses): stages.append(.statuses(statuses))
            case .sort(let by, let descending): stages.append(.sort(ItemSort(field: by, descending: descending)))
            case .limit(let count): stages.append(.limit(count, last: nil))
            case .removeDuplicates: stages.append(.removeDuplicates(last: nil))
            case .throttle(let interval): stages.append(.throttle(interval, lastSent: nil, waiting: nil))
            case .debounce(let interval): stages.append(.debounce(interval, waiting: nil))
            case .delay(let interval): stages.append(.delay(interval, waiting: []))
            case .filter, .select: break
            }
        }
        flushSteps()
        return stages
    }

    /// True for stages that shape what a state holds (and so apply to the state a new subscriber starts
    /// from), false for those that decide whether or when it goes out.
    var shapesState: Bool {
        switch self {
        case .statuses, .items, .sort, .limit: true
        case .removeDuplicates, .throttle, .debounce, .delay: false
        }
    }

    /// `state` arriving at `now`: what goes on at once.
    mutating func receive(_ state: PublishedState, at now: Instant) -> [PublishedState] {
        switch self {
        case .statuses(let statuses):
            return statuses.contains(StateStatus(state.state.status)) ? [state] : []
        case .items(var transform):
            defer { self = .items(transform) }
            return [state.mapItems { transform.apply($0) }]
        case .sort(var sort):
            defer { self = .sort(sort) }
            return [state.mapItems { sort.apply($0) }]
        case .limit(let count, var last):
            defer { self = .limit(count, last: last) }
            return [state.mapItems { Self.limit($0, count, &last) }]
        case .removeDuplicates(let last):
            if let last, Self.sameResult(last, state.state) { return [] }
            self = .removeDuplicates(last: state.state)
            return [state]
        case .throttle(let interval, let lastSent, _):
            if let lastSent, now < lastSent + interval {
                self = .throttle(interval, lastSent: lastSent, waiting: state)
                return []
            }
            self = .throttle(interval, lastSent: now, waiting: nil)
            return [state]
        case .debounce(let interval, _):
            self = .debounce(interval, waiting: (state, now + interval))
            return []
        case .delay(let interval, var waiting):
            waiting.append((state, now + interval))
            self = .delay(interval, waiting: waiting)
            return []
        }
    }

    /// What a timer due by `now` lets out.
    mutating func advance(to now: Instant) -> [PublishedState] {
        switch self {
        case .throttle(let interval, let lastSent?, let waiting?) where now >= lastSent + interval:
            self = .throttle(interval, lastSent: now, waiting: nil)
            return [waiting]
        case .debounce(let interval, let waiting?) where now >= waiting.due:
            self = .debounce(interval, waiting: nil)
            return [waiting.state]
        case .delay(let interval, let waiting):
            let due = waiting.prefix { $0.due <= now }
            guard !due.isEmpty else { return [] }
            self = .delay(interval, waiting: Array(waiting.dropFirst(due.count)))
            return due.map(\.state)
        default:
            return []
        }
    }

    /// When `advance` next lets something out; nil when nothing waits.
    var deadline: Instant? {
        switch self {
        case .throttle(let interval, let lastSent?, _?): lastSent + interval
        case .debounce(_, let waiting?): waiting.due
        case .delay(_, let waiting): waiting.first?.due
        default: nil
        }
    }

    /// `limit`: the first `count` items; a removal of an item outside them changes nothing.
    private static func limit(_ input: ItemCollection, _ count: Int, _ last: inout (input: ItemCollection, output: ItemCollection)?) -> ItemCollection
    {
        if let previous = last, input.isSameCollection(as: previous.input) { return previous.output }
        if let previous = last, let id = input.removedID(from: previous.input), !previous.output.contains(id: id) {
            last = (input, previous.output)
            return previous.output
        }
        let output = input.count <= count ? input : ItemCollection(subset: Array(input.items.prefix(count)))
        last = (input, output)
        return output
    }

    /// Whether two results are the same for `removeDuplicates`: the same status and, for a success, the same items
    /// (byte for byte, in order) and staleness; for a failure, the same error. When the items were fetched and
    /// where from do not count: a reload that brought the same list is a duplicate.
    static func sameResult(_ lhs: LoadingState, _ rhs: LoadingState) -> Bool {
        switch (lhs, rhs) {
        case (.idle, .idle), (.loading, .loading): true
        case (.success(let left, let leftProvenance), .success(let right, let rightProvenance)):
            leftProvenance.stale == rightProvenance.stale && left == right
        case (.failure(let left), .failure(let right)): left == right
        default: false
        }
    }
}

extension PublishedState {
    /// The same state with `transform` applied to its items, when it is a success.
    func mapItems(_ transform: (ItemCollection) -> ItemCollection) -> PublishedState {
        guard case .success(let items, let provenance) = state else { return self }
        return PublishedState(seq: seq, state: .success(transform(items), provenance))
    }
}
