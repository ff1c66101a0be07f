/// Names of Depot's methods and notification: the contract described in rpc-schema/.
public enum DepotProtocol {
    public enum Method {
        public static let state = "state"
        public static let get = "get"
        public static let load = "load"
        public static let remove = "remove"
        public static let wipe = "wipe"
        public static let subscribe = "subscribe"
        public static let unsubscribe = "unsubscribe"
        /// OpenRPC's discovery method: answers the protocol's document.
        public static let discover = "rpc.discover"
    }

    /// The notification that carries each published state to a subscription.
    public static let stateChanged = "stateChanged"
}

extension DepotProtocol {
    /// Depot's own error codes, in JSON-RPC's server-error range (-32000 to -32099).
    public enum ErrorCode {
        /// `load` failed; `data` is the failure state it published.
        public static let loadFailed = -32001
        /// `remove` was refused by the source; `data` is the rolled-back state.
        public static let removeFailed = -32002
        /// No item has that id; for `remove`, `data` is the rolled-back state.
        public static let notFound = -32003
        /// A per-connection limit was reached (for example, too many subscriptions).
        public static let limitExceeded = -32004
    }
}
