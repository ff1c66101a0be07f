import ArgumentParser
import DepotClient
import DepotJSON
import DepotWire

/// One call to depotd as depotctl makes it: connect, call, close; an error answer is printed as one line on
/// stderr and ends the command with `ExitStatus.remoteError`.
struct RemoteCall {
    let options: ConnectionOptions

    /// Calls `method` by name; the result as depotd sent it.
    func run(_ method: String, params: JSONObject? = nil) async throws -> JSONValue {
        let connection = try await options.connect()
        let result: Result<JSONValue, DepotClientError>
        do {
            let answer = try await options.answer(from: connection) { () async throws(DepotClientError) in
                try await connection.call(method, params: params)
            }
            result = .success(answer)
        } catch let error as DepotClientError {
            result = .failure(error)
        }
        await connection.close()
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            Output.error(error.description)
            if case .remote = error {
                throw ExitCode(ExitStatus.remoteError)
            }
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    /// Calls the method `request` describes: the result as sent (what --json prints) and decoded.
    func run<Request: DepotRequest>(_ request: Request) async throws -> (json: JSONValue, result: Request.Result) {
        let json = try await run(Request.method, params: request.params)
        do {
            return (json, try DepotConnection.decode(json, as: Request.self))
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}
