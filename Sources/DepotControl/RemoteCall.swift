import ArgumentParser
import DepotClient
import DepotJSON

/// One call to depotd as depotctl makes it: connect, call, close; an error answer is printed as one line on
/// stderr and ends the command with `ExitStatus.remoteError`.
struct RemoteCall {
    let options: ConnectionOptions

    func run(_ method: String, params: JSONObject? = nil) async throws -> JSONValue {
        let connection = try await options.connect()
        defer { Task { await connection.close() } }
        do {
            return try await connection.call(method, params: params)
        } catch {
            Output.error(error.description)
            if case .remote = error {
                throw ExitCode(ExitStatus.remoteError)
            }
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}
