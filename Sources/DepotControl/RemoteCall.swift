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
        switch try await attempt(method, params: params) {
        case .success(let value):
            return value
        case .failure(let error):
            Output.error(error)
            throw ExitCode(ExitStatus.remoteError)
        }
    }

    /// Calls `method` by name: the result as depotd sent it, or the error depotd answered with, for the caller to act
    /// on (`edit` reopens the editor on an invalid item). A connection that fails ends the command as `run` does.
    func attempt(_ method: String, params: JSONObject? = nil) async throws -> Result<JSONValue, RemoteError> {
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
            return .success(value)
        case .failure(.remote(let error)):
            return .failure(error)
        case .failure(let error):
            Output.error(error)
            throw ExitCode(ExitStatus.unavailable)
        }
    }

    /// Calls the method `request` describes: the result as sent (what --json prints) and decoded.
    func run<Request: DepotRequest>(_ request: Request) async throws -> (json: JSONValue, result: Request.Result) {
        try Self.decoded(try await run(Request.method, params: request.params), as: Request.self)
    }

    /// Calls the method `request` describes: the result as sent and decoded, or the error depotd answered with.
    func attempt<Request: DepotRequest>(_ request: Request) async throws -> Result<(json: JSONValue, result: Request.Result), RemoteError> {
        switch try await attempt(Request.method, params: request.params) {
        case .success(let json): return .success(try Self.decoded(json, as: Request.self))
        case .failure(let error): return .failure(error)
        }
    }

    private static func decoded<Request: DepotRequest>(_ json: JSONValue, as: Request.Type) throws -> (json: JSONValue, result: Request.Result) {
        do {
            return (json, try DepotConnection.decode(json, as: Request.self))
        } catch {
            Output.error(error.description)
            throw ExitCode(ExitStatus.unavailable)
        }
    }
}
