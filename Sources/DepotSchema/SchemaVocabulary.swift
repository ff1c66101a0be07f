/// The keywords `JSONSchema` knows, by what it does with them: the draft-07 keywords it checks, the
/// annotations it ignores, and the draft-07 keywords it does not implement. Anything else is not draft-07.
enum SchemaVocabulary {
    /// Checked, with the kind of instance each one applies to.
    static let implemented: [String: InstanceKind] = [
        "$ref": .any,
        "type": .any, "enum": .any, "const": .any,
        "multipleOf": .number, "minimum": .number, "maximum": .number, "exclusiveMinimum": .number, "exclusiveMaximum": .number,
        "minLength": .string, "maxLength": .string, "pattern": .string,
        "items": .array, "additionalItems": .array, "minItems": .array, "maxItems": .array, "uniqueItems": .array,
        "contains": .array,
        "required": .object, "properties": .object, "patternProperties": .object, "additionalProperties": .object,
        "propertyNames": .object, "dependencies": .object, "minProperties": .object, "maxProperties": .object,
        "allOf": .any, "anyOf": .any, "oneOf": .any, "not": .any, "if": .any, "then": .any, "else": .any,
    ]

    /// Annotations and containers, which never make an instance invalid. (`definitions` only holds schemas for
    /// `$ref`; those are checked when a `$ref` leads to them.)
    /// `$id` names a schema and sets the base URI for the `$ref`s inside it; `SchemaResources` reads it.
    static let ignored: Set<String> = [
        "title", "description", "default", "examples", "$comment", "readOnly", "writeOnly", "$schema", "definitions", "$id",
    ]

    /// Draft-07 keywords this validator does not check, with the kind of instance each would apply to: the
    /// string formats and content annotations, which draft-07 lets a validator leave unchecked.
    static let notImplemented: [String: InstanceKind] = [
        "format": .string, "contentMediaType": .string, "contentEncoding": .string,
    ]
}
