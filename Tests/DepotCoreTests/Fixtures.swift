import DepotCore
import DepotJSON
import DepotTestSupport
import Logging

/// A repository on a test source, with a recorder that has seen every state from seq 0.
struct Fixture {
    let source: TestSource
    let repository: Repository
    let recorder = StateRecorder()

    init(source: TestSource = TestSource(count: 3), idField: String = "id", rules: WriteRules = WriteRules()) {
        self.source = source
        self.repository = Repository(
            source: source, idField: idField, rules: rules, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        .running()
        repository.addObserver(recorder)
    }

    /// Loads and returns the success state, failing the test on anything else.
    func loaded() async throws -> PublishedState {
        try await repository.load().result.get()
    }

    var states: [PublishedState] { recorder.states.value }

    /// The ids of a state's items; nil unless it is a success.
    static func ids(_ state: LoadingState) -> [String]? {
        state.items?.items.map(\.id)
    }

    /// The sequence as `status` or `success[ids]` strings, for exact comparisons.
    var trace: [String] {
        states.map { published in
            switch published.state {
            case .success(let items, _): "success[\(items.items.map(\.id).joined(separator: ","))]"
            case .failure(let error): "failure(\(error.kind))"
            default: published.state.status.rawValue
            }
        }
    }

    /// Every seq is one higher than the one before, starting at 0.
    var seqsAreConsecutive: Bool {
        states.map(\.seq) == Array(0..<states.count)
    }
}
