/// The keywords `JSONSchema` knows, by what it does with them: the draft-07 keywords it checks, the
/// annotations it ignores, and the draft-07 keywords it does not implement. Anything else is not draft-07.
enum SchemaVocabulary {
    /// Checked, with the kind of instance each one applies to.
    static let implemented: [String: InstanceKind] = [
        "$ref": .any,
        "type": .any, "enum": .any, "const": .any,
        "minimum": .number, "maximum": .number, "exclusiveMinimum": .number, "exclusiveMaximum": .number,
        "minLength": .string, "maxLength": .string,
        "items": .array, "additionalItems": .array, "minItems": .array, "maxItems": .array, "uniqueItems": .array,
        "required": .object, "properties": .object, "additionalProperties": .object,
        "minProperties": .object, "maxProperties": .object,
        "allOf": .any, "anyOf": .any, "oneOf": .any, "not": .any, "if": .any, "then": .any, "else": .any,
    ]

    /// Annotations and containers, which never make an instance invalid. (`definitions` only holds schemas for
    /// `$ref`; those are checked when a `$ref` leads to them.)
    static let ignored: Set<String> = [
        "title", "description", "default", "examples", "$comment", "readOnly", "writeOnly", "$schema", "definitions",
    ]

    /// Draft-07 keywords this validator does not check, with the kind of instance each would apply to.
    /// `$id` is here because it changes what `$ref`s inside it mean.
    static let notImplemented: [String: InstanceKind] = [
        "multipleOf": .number,
        "pattern": .string, "format": .string, "contentMediaType": .string, "contentEncoding": .string,
        "contains": .array,
        "patternProperties": .object, "propertyNames": .object, "dependencies": .object,
        "$id": .any,
    ]
}
