import DepotJSON

/// An error a method may answer with: an OpenRPC Error Object, `$ref`s to `#/components/errors/…` followed.
///
/// OpenRPC 1.3 defines an error's `data` as a value (an example), not a schema; Depot's document uses it as
/// the schema of the data its errors carry, and so does this type.
package struct OpenRPCError: Sendable {
    package let code: Int
    package let message: String
    /// What the error's `data` must match; nil when the document does not describe it (any data, or none).
    package let dataSchema: JSONSchema?
    /// The error's name in `components/errors` when the method refers to it there ("RemoveFailed").
    package let componentName: String?

    /// The codes JSON-RPC 2.0 itself defines, which any method may answer with: parse error, invalid request,
    /// method not found, invalid params, internal error.
    package static let jsonRPCCodes = [-32700, -32600, -32601, -32602, -32603]

    init(_ value: JSONValue, at location: String, reader: OpenRPCReader) throws(OpenRPCDocumentError) {
        let (object, place) = try reader.object(value, at: location, what: "an error object")
        guard let codeValue = object.member(named: "code") else { throw .malformed(place, "has no \"code\"") }
        guard let code = codeValue.numberValue?.intValue else {
            throw .malformed(SchemaCompiler.child(place, "code"), "must be an integer, found \(Wording.brief(codeValue))")
        }
        self.code = code
        self.message = try reader.string(object, "message", at: place)
        self.dataSchema = reader.schema(object, "data", at: place)
        let prefix = "#/components/errors/"
        self.componentName = place.hasPrefix(prefix) ? JSONPointer(parsing: place.dropFirst())?.tokens.last : nil
    }
}
