import DepotJSON

/// Parses `text` and returns the error, or nil when it parsed.
func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

/// Parses `bytes` and returns the error, or nil when they parsed.
func parseError(_ bytes: [UInt8], maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// Shorthand for an expected error.
func failure(_ reason: JSONParseError.Reason, at offset: Int) -> JSONParseError {
    JSONParseError(reason: reason, offset: offset)
}

/// A number value from literal text that the test knows is valid.
func number(_ literal: String) -> JSONValue {
    .number(JSONNumber(literal: literal)!)
}

/// `"` + bytes + `"`, for string tests that need raw (possibly invalid) bytes.
func quoted(_ bytes: [UInt8]) -> [UInt8] {
    [0x22] + bytes + [0x22]
}
