/// What a finished command printed, and its exit status.
package struct CommandResult: Sendable {
    package let status: Int32
    package let standardOutput: String
    package let standardError: String

    package init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Runs a program to its end; `input`, when given, is its standard input. `limit` is a safety net against a hang,
    /// never a measurement: a slow program on a loaded machine (lintian) wants a wider one.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], input: String? = nil, limit: Duration = .seconds(60)
    ) async throws -> CommandResult {
        let child = try ChildProcess(executable, arguments, environment: environment, input: input.map { Array($0.utf8) })
        let status = try await child.waitForExit(limit)
        return CommandResult(status: status, standardOutput: child.standardOutput.value, standardError: child.standardError.value)
    }
}
