import DepotCore
import DepotJSON
import DepotTestSupport
import Logging
import Testing

/// A repository that logs nothing.
func makeRepository(_ source: any Source, idField: String = "id") -> Repository {
    Repository(source: source, idField: idField, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })).running()
}

/// A JSON number from its literal, for expected values such as `6.90` or `1E+2`.
func number(_ literal: String) -> JSONValue {
    .number(JSONNumber(literal: literal)!)
}

/// Runs `body` and returns the `SourceError` it threw; records an issue when it threw something else or nothing.
func sourceError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> SourceError? {
    do {
        try await body()
        Issue.record("expected a SourceError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as SourceError {
        return error
    } catch {
        Issue.record("expected a SourceError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    var successValue: Success? {
        if case .success(let success) = self { return success }
        return nil
    }
}
