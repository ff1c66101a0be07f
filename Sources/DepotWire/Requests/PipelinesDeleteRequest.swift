public import DepotJSON

/// `pipelines.delete`: deletes a stored pipeline and answers true; its subscriptions end with a
/// `subscriptionEnded` notification. notFound (-32003) when there is none by that name, readOnly (-32006) for a
/// configured one, storageFailed (-32007) when the state directory cannot be written.
public struct PipelinesDeleteRequest: PipelineNameRequest {
    public static let method = "pipelines.delete"
    public static let accessLevel = AccessLevel.admin

    public var name: String

    public init(name: String) {
        self.name = name
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> Bool {
        guard case .bool(let deleted) = value else { throw WireDecodingError("pipelines.delete answers true, not \(value.typeName)") }
        return deleted
    }
}
