import DepotJSON
import DepotSchema
import Testing

/// Each violation names the keyword that failed, as an item schema's errors give it to a client (-32009's
/// `violations`).
@Suite("Violations name the keyword that failed")
struct KeywordNameTests {
    @Test(
        "each keyword is named",
        arguments: [
            (#"{"type": "string"}"#, "1", "type"), (#"{"enum": [1, 2]}"#, "3", "enum"), (#"{"const": 1}"#, "2", "const"),
            (#"{"minimum": 2}"#, "1", "minimum"), (#"{"exclusiveMaximum": 2}"#, "2", "exclusiveMaximum"), (#"{"multipleOf": 2}"#, "3", "multipleOf"),
            (#"{"minLength": 2}"#, #""a""#, "minLength"), (#"{"maxLength": 1}"#, #""ab""#, "maxLength"), (#"{"pattern": "^a"}"#, #""b""#, "pattern"),
            (#"{"minItems": 1}"#, "[]", "minItems"), (#"{"uniqueItems": true}"#, "[1, 1]", "uniqueItems"),
            (#"{"contains": {"const": 1}}"#, "[2]", "contains"), (#"{"required": ["a"]}"#, "{}", "required"),
            (#"{"maxProperties": 0}"#, #"{"a": 1}"#, "maxProperties"), (#"{"additionalProperties": false}"#, #"{"a": 1}"#, "additionalProperties"),
            (#"{"dependencies": {"a": ["b"]}}"#, #"{"a": 1}"#, "dependencies"), (#"{"not": {"type": "number"}}"#, "1", "not"),
            (#"{"anyOf": [{"minimum": 5}, {"maximum": 0}]}"#, "3", "anyOf"), (#"{"oneOf": [{"minimum": 0}, {"maximum": 5}]}"#, "3", "oneOf"),
            (#"{"properties": {"a": {"type": "string"}}}"#, #"{"a": 1}"#, "type"),
        ])
    func named(schema: String, instance: String, keyword: String) throws {
        let violations = JSONSchema(try JSONParser.parse(schema)).validate(try JSONParser.parse(instance))
        #expect(violations.map(\.keyword) == [keyword], "\(violations)")
    }
}
