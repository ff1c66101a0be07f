public import DepotCore
public import DepotOperators

/// A pipeline running over the repository's states: its stages, and what each remembers.
///
/// A value-type state machine driven by the caller: `receive` feeds a published state in at an instant and
/// returns what comes out at once, in order; `advance` returns what timers due by an instant let out;
/// `deadline` says when to call it next. Outgoing states keep the repository's `seq`, so a state the pipeline
/// held back shows as a gap in seq, never as a lost state.
public struct PipelineRun {
    public typealias Instant = ContinuousClock.Instant

    public let pipeline: Pipeline
    private var stages: [PipelineStage]

    public init(_ pipeline: Pipeline, idField: String) {
        self.pipeline = pipeline
        self.stages = PipelineStage.stages(for: pipeline.operators, idField: idField)
    }

    /// Feeds `state` in at `now` (after letting out whatever was due by then); returns what comes out, in order.
    public mutating func receive(_ state: PublishedState, at now: Instant) -> [PublishedState] {
        run(now, input: [state])
    }

    /// What timers due by `now` let out, in order.
    public mutating func advance(to now: Instant) -> [PublishedState] {
        run(now, input: [])
    }

    /// When `advance` next has something to let out; nil when nothing waits.
    public var deadline: Instant? {
        stages.compactMap(\.deadline).min()
    }

    /// `state` through the stages that shape what it holds (statuses, filter, select, sort, limit), ignoring
    /// those that decide whether or when it goes out: what a subscriber that starts now is sent first. Nil when
    /// `statuses` holds it back.
    public mutating func shape(_ state: PublishedState) -> PublishedState? {
        var current = state
        for index in stages.indices where stages[index].shapesState {
            // Shaping stages answer at once and remember nothing but caches, so the instant does not matter.
            guard let next = stages[index].receive(current, at: .now).first else { return nil }
            current = next
        }
        return current
    }

    /// `state` with its items through the pipeline's operators that shape items, once (`state` and `get` with a
    /// pipeline): the operators that choose which states of a stream go out, and when, do not apply to one answer.
    public static func shapeItems(of state: PublishedState, through pipeline: Pipeline, idField: String) -> PublishedState {
        var run = PipelineRun(Pipeline(pipeline.operators.filter(\.shapesItems)), idField: idField)
        return run.shape(state) ?? state
    }

    private mutating func run(_ now: Instant, input: [PublishedState]) -> [PublishedState] {
        var carried = input
        for index in stages.indices {
            var out = stages[index].advance(to: now)
            for state in carried {
                out += stages[index].receive(state, at: now)
            }
            carried = out
        }
        return carried
    }
}
