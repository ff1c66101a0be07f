/// Depot's version: what `depotd --version` and `depotctl --version` print, what depotd logs when it starts, and
/// the `info.version` of rpc-schema/openrpc.json, which `rpc.discover` serves (a test holds the two equal, so a
/// client can tell which protocol a daemon speaks from either).
public enum DepotVersion {
    public static let current = "0.3.0"
}
