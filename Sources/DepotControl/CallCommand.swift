import ArgumentParser
import DepotJSON

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call any method with params given as a JSON object, and print its result as JSON.",
        discussion: """
            The method and its params are checked against the protocol's document (depotctl schema) before anything \
            is sent: a method it does not list (the ones it does are named), an unknown param, a missing required one \
            or a wrong type is named, and depotctl exits with status 64; --no-check sends them anyway. \
            Example: depotctl call remove '{"id": "25", "optimistic": true}'
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The method name, e.g. state, get, load, remove, wipe.")
    var method: String

    @Argument(help: "The params, as a JSON object.")
    var params: String?

    @Flag(help: "Send the method and params without checking them against the protocol's document (for a newer depotd).")
    var noCheck = false

    func validate() throws {
        let params = try parsedParams()
        if !noCheck {
            try ParamsCheck.check(method, params, offersNoCheck: true)
        }
    }

    func run() async throws {
        let result = try await RemoteCall(options: options).run(method, params: try parsedParams())
        Output.line(options.json ? result.jsonText : result.prettyPrinted())
    }

    private func parsedParams() throws -> JSONObject? {
        guard let params else { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(params)
        } catch {
            throw ValidationError("<params> is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw ValidationError("<params> must be a JSON object (params by name), not \(value.typeName)")
        }
        return object
    }
}
