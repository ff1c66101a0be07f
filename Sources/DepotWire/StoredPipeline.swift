public import DepotJSON
public import DepotOperators

/// A named pipeline as `pipelines.get` and `pipelines.list` answer it: `{"name", "description"?, "pipeline",
/// "readOnly"}` — read-only when it comes from a configuration file.
public struct StoredPipeline: Sendable, Equatable {
    public let named: NamedPipeline
    public let readOnly: Bool

    public init(named: NamedPipeline, readOnly: Bool) {
        self.named = named
        self.readOnly = readOnly
    }

    public var json: JSONValue {
        guard case .object(var object) = named.json else { return named.json }
        object["readOnly"] = .bool(readOnly)
        return .object(object)
    }

    public init(decoding value: JSONValue) throws(WireDecodingError) {
        guard case .object(var object) = value, case .bool(let readOnly)? = object["readOnly"] else {
            throw WireDecodingError("a stored pipeline is an object with name, pipeline and readOnly")
        }
        object["readOnly"] = nil
        do {
            named = try NamedPipeline(decoding: .object(object))
        } catch {
            throw WireDecodingError("a stored pipeline: \(error)")
        }
        self.readOnly = readOnly
    }
}
