import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import FuzzDriver

/// A few states to run a decoded pipeline over: a collection, a removal from it, loading, a failure.
private let states: [PublishedState] = {
    let values: [JSONValue] = (1...12).map { n in
        [
            "id": .number(JSONNumber(n)), "name": .string("item \(n)"), "type": .string(n % 3 == 0 ? "fire" : "water"),
            "level": .number(JSONNumber(n * 7 % 50)), "tags": .array([.string("a"), .string(n % 2 == 0 ? "even" : "odd")]),
            "nested": ["x": .number(JSONNumber(n)), "y": n % 4 == 0 ? .null : .bool(true)],
        ]
    }
    // Cannot fail: the ids are distinct integers.
    let items = try! ItemCollection(values: values, idField: "id")
    let provenance = Provenance(origin: .source, fetchedAt: .init(timeIntervalSince1970: 1_700_000_000), stale: false)
    return [
        PublishedState(seq: 0, state: .idle),
        PublishedState(seq: 1, state: .loading),
        PublishedState(seq: 2, state: .success(items, provenance)),
        PublishedState(seq: 3, state: .success(items.removing(id: "3"), provenance.derived)),
        PublishedState(seq: 4, state: .failure(StateError(.loadFailed, message: "down"))),
        PublishedState(seq: 5, state: .success(items.removing(id: "5"), provenance)),
    ]
}()

/// Decodes the input's JSON as a pipeline's operators; a pipeline it accepts encodes back to one that decodes the
/// same, and runs over the states (with time moving on) without a crash, keeping seq order.
func fuzzPipeline(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let input = bytes(start, count)
    guard let value = try? JSONParser.parse(input), let pipeline = try? Pipeline(decoding: value) else { return 0 }
    guard let again = try? Pipeline(decoding: pipeline.json) else {
        fatalError("a decoded pipeline's encoding does not decode: \(pipeline.json.jsonText.prefix(300))")
    }
    precondition(again.json == pipeline.json, "encoding is not stable")
    var run = PipelineRun(pipeline, idField: "id")
    var now = ContinuousClock.now
    var lastSeq = -1
    for state in states {
        var out = run.receive(state, at: now)
        now = now.advanced(by: .milliseconds(700))
        out += run.advance(to: now)
        for published in out {
            precondition(published.seq > lastSeq, "a pipeline let states out of order")
            lastSeq = published.seq
        }
        _ = PipelineRun.shapeItems(of: state, through: pipeline, idField: "id")
    }
    if let deadline = run.deadline {
        _ = run.advance(to: deadline)
    }
    return 0
}

@main
enum FuzzPipelineMain {
    static func main() {
        runFuzzer(fuzzPipeline)
    }
}
