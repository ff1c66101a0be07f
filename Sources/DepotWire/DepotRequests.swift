/// Every method a client may call: the protocol's catalogue, which a client may list (and the suite holds to
/// rpc-schema/openrpc.json).
public enum DepotRequests {
    public static let all: [any DepotRequest.Type] = [
        StateRequest.self, GetRequest.self, LoadRequest.self, RemoveRequest.self, PutRequest.self, PatchRequest.self, ApplyRequest.self,
        WipeRequest.self,
        SubscribeRequest.self, UnsubscribeRequest.self, DiscoverRequest.self, PipelinesPutRequest.self, PipelinesGetRequest.self,
        PipelinesListRequest.self, PipelinesDeleteRequest.self, WhoamiRequest.self, StatsRequest.self,
    ]
}
