import DepotJSON

/// Reads the parts of an OpenRPC document that `OpenRPCDocument` needs, following Reference Objects
/// (`{"$ref": "#/components/…"}`) and throwing `OpenRPCDocumentError`s that say where the problem is.
struct OpenRPCReader {
    let root: JSONValue

    /// The object at `location`, after following a `$ref` if it is a Reference Object; also returns where the
    /// object really is, for the locations of schemas inside it.
    func object(_ value: JSONValue, at location: String, what: String) throws(OpenRPCDocumentError) -> (JSONObject, String) {
        guard case .object(let object) = value else {
            throw .malformed(location, "must be \(what) (an object), found \(Wording.brief(value))")
        }
        guard let reference = object.member(named: "$ref") else { return (object, location) }
        guard let text = reference.stringValue, text.hasPrefix("#"), let pointer = JSONPointer(parsing: text.dropFirst()) else {
            throw .malformed(
                SchemaCompiler.child(location, "$ref"),
                "must be a reference within the document (\"#/components/…\"), found \(Wording.brief(reference))")
        }
        guard let target = pointer.resolve(in: root) else {
            throw .malformed(SchemaCompiler.child(location, "$ref"), "\(Wording.quote(text)) leads nowhere in the document")
        }
        guard case .object(let resolved) = target, resolved.member(named: "$ref") == nil else {
            throw .malformed(SchemaCompiler.child(location, "$ref"), "\(Wording.quote(text)) must lead to \(what), found \(Wording.brief(target))")
        }
        return (resolved, "#" + pointer.description)
    }

    func string(_ object: JSONObject, _ key: String, at location: String) throws(OpenRPCDocumentError) -> String {
        guard let value = object.member(named: key) else { throw .malformed(location, "has no \(Wording.quote(key))") }
        guard let string = value.stringValue else {
            throw .malformed(SchemaCompiler.child(location, key), "must be a string, found \(Wording.brief(value))")
        }
        return string
    }

    func optionalString(_ object: JSONObject, _ key: String, at location: String) throws(OpenRPCDocumentError) -> String? {
        guard object.member(named: key) != nil else { return nil }
        return try string(object, key, at: location)
    }

    func optionalBool(_ object: JSONObject, _ key: String, at location: String) throws(OpenRPCDocumentError) -> Bool? {
        guard let value = object.member(named: key) else { return nil }
        guard let flag = value.boolValue else {
            throw .malformed(SchemaCompiler.child(location, key), "must be true or false, found \(Wording.brief(value))")
        }
        return flag
    }

    /// The array `key` of `object` (empty when absent).
    func array(_ object: JSONObject, _ key: String, at location: String) throws(OpenRPCDocumentError) -> [JSONValue] {
        guard let value = object.member(named: key) else { return [] }
        guard let elements = value.arrayValue else {
            throw .malformed(SchemaCompiler.child(location, key), "must be an array, found \(Wording.brief(value))")
        }
        return elements
    }

    /// The schema `key` of a content descriptor or error, compiled against the whole document.
    func schema(_ object: JSONObject, _ key: String, at location: String) -> JSONSchema? {
        object.member(named: key).map { JSONSchema($0, root: root, location: SchemaCompiler.child(location, key)) }
    }
}
