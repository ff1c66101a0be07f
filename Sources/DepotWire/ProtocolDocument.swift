public import DepotJSON

/// The protocol's contract, rpc-schema/openrpc.json, as built into this binary by the EmbedRPCSchema plugin:
/// what rpc.discover answers and what depotctl checks params against. There is no other copy.
public enum ProtocolDocument {
    /// The document exactly as the file has it.
    public static var text: String { EmbeddedOpenRPC.text }

    /// The document parsed. The build embeds the file as it is, so a broken file stops here with a clear message
    /// (and the tests, which parse it first, fail before any binary ships with it).
    public static let value: JSONValue = {
        do {
            return try JSONParser.parse(EmbeddedOpenRPC.text)
        } catch {
            preconditionFailure("rpc-schema/openrpc.json, built into this binary, is not valid JSON: \(error)")
        }
    }()
}
