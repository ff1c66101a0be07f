import ArgumentParser
import DepotJSON
import DepotSchema
import DepotWire

/// Holds `depotctl call`'s params to the protocol's document (rpc-schema/openrpc.json, as built into depotctl)
/// before anything is sent, so a typo is named at once instead of travelling to the daemon.
///
/// A method the document does not list is refused too, naming the methods it lists; `--no-check` sends it anyway, for
/// a newer depotd that may have it (depotd answers -32601 with its own list if it does not).
enum ParamsCheck {
    static let document: OpenRPCDocument? = try? OpenRPCDocument(json: ProtocolDocument.value)

    /// Throws a `ValidationError` (exit 64) naming each wrong param, or calling out a notification;
    /// `offersNoCheck` when the command has --no-check to send them anyway.
    static func check(_ method: String, _ params: JSONObject?, offersNoCheck: Bool = false) throws {
        guard let document else { return }
        guard let described = document.method(named: method) else {
            let methods = document.methods.filter { !$0.isNotification }.map(\.name).sorted()
            throw ValidationError(
                "\(method) is not a method of the protocol's document (depotctl schema); the methods are "
                    + methods.joined(separator: ", ") + "."
                    + (offersNoCheck ? " Add --no-check to send it anyway (a newer depotd may have it)." : ""))
        }
        guard !described.isNotification else {
            throw ValidationError("\(method) is a notification depotd sends to subscribers, not a method to call; use `depotctl watch` to receive it")
        }
        let violations = described.validateParams(params ?? JSONObject())
        guard !violations.isEmpty else { return }
        let takes =
            described.params.isEmpty
            ? "\(method) takes no params"
            : "\(method) takes " + described.params.map { "\($0.name)\($0.isRequired ? "" : " (optional)")" }.joined(separator: ", ")
        let problems = violations.map { violation in
            // The path starts with the param's name ("/optimistic", "/filter/0"); the rest is within its value.
            guard let name = violation.pathTokens.first else { return violation.message }
            let rest = violation.path.dropFirst().drop { $0 != "/" }
            return "param \"\(name)\"\(rest.isEmpty ? "" : " at \(rest)"): \(violation.message)"
        }
        // An unknown name's message already says what the method takes.
        let hint = problems.contains { $0.contains("(it takes") } ? "" : " \(takes)."
        throw ValidationError(
            "the params do not fit \(method) in the protocol's document (depotctl schema): " + problems.joined(separator: "; ") + ".\(hint)"
                + (offersNoCheck ? " Add --no-check to send them anyway." : "")
        )
    }
}
