import DepotPlatform

/// Thrown when a test's wait outlasts its (generous) limit: the awaited event never came.
package struct TimeoutError: Error, CustomStringConvertible {
    package let what: String
    package let limit: Duration
    package var description: String { "timed out after \(limit) waiting for \(what)" }
}

/// Runs `operation`, failing with `TimeoutError` if it has not finished within `limit`. The limit is a
/// safety net against a hang, never a measurement: tests wait for events, and the limit only decides how
/// long a broken build takes to fail. (On time-out the operation is cancelled, not awaited; see `withDeadline`.)
@discardableResult
package func withTimeout<Value: Sendable>(
    _ limit: Duration = .seconds(60),
    _ what: String = "the operation",
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let limit = limit * TestTime.scale
    do {
        return try await withDeadline(limit, operation)
    } catch is DeadlineExceeded {
        throw TimeoutError(what: what, limit: limit)
    }
}

/// How the tests' waits stretch on a slow build.
package enum TestTime {
    /// Every time-out is multiplied by this: `DEPOT_TEST_TIME_SCALE` (a whole number, 1 unless set), which
    /// `scripts/test --tsan` sets because a ThreadSanitizer build runs several times slower. Only the safety nets
    /// grow; no test waits longer for an event that has come.
    package static let scale: Int = {
        guard let text = ProcessEnvironment.variables["DEPOT_TEST_TIME_SCALE"], let scale = Int(text), scale >= 1 else { return 1 }
        return scale
    }()
}
