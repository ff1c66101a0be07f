import DepotJSON

/// One param of a method: an OpenRPC Content Descriptor in a method's `params`.
package struct OpenRPCParam: Sendable {
    package let name: String
    /// Whether a call must give it (OpenRPC's `required`, false when absent).
    package let isRequired: Bool
    package let schema: JSONSchema
    package let summary: String?
    package let description: String?

    init(_ value: JSONValue, at location: String, reader: OpenRPCReader) throws(OpenRPCDocumentError) {
        let (object, place) = try reader.object(value, at: location, what: "a content descriptor")
        self.name = try reader.string(object, "name", at: place)
        self.isRequired = try reader.optionalBool(object, "required", at: place) ?? false
        guard let schema = reader.schema(object, "schema", at: place) else {
            throw .malformed(place, "has no \"schema\"")
        }
        self.schema = schema
        self.summary = try reader.optionalString(object, "summary", at: place)
        self.description = try reader.optionalString(object, "description", at: place)
    }
}
