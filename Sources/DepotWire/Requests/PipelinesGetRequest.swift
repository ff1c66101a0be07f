public import DepotJSON

/// `pipelines.get`: one named pipeline, `{"name", "description"?, "pipeline", "readOnly"}`; notFound (-32003)
/// when there is none by that name.
public struct PipelinesGetRequest: PipelineNameRequest {
    public static let method = "pipelines.get"

    public var name: String

    public init(name: String) {
        self.name = name
    }

    public static func decodeResult(_ value: JSONValue) throws(WireDecodingError) -> StoredPipeline {
        try StoredPipeline(decoding: value)
    }
}
