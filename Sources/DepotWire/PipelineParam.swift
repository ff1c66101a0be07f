import DepotJSON
public import DepotPipeline
public import DepotRPC

extension Params {
    /// The `pipeline` param of `subscribe`, `state` and `get`: an array of operators; nil when absent. An invalid
    /// one is -32602 naming the operator and what is wrong, with `data` the JSON Pointer of the fault in the params
    /// (`/pipeline/2/where/field`).
    public func pipeline() throws(RPCError) -> Pipeline? {
        guard let value = members["pipeline"] else { return nil }
        do {
            return try Pipeline(decoding: value)
        } catch {
            throw RPCError(
                code: RPCError.invalidParamsCode, message: "Invalid params: \"pipeline\" of \(method): \(error)",
                data: .value(.string("/pipeline" + error.pointer.description)))
        }
    }
}
