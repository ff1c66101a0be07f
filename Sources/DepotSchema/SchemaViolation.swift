import DepotJSON

/// One way an instance fails its schema: where (a JSON Pointer into the instance) and what is wrong,
/// worded for the person who has to fix it ("/items/3/id: must be an integer, found string \"x\"").
package struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// A JSON Pointer (RFC 6901) into the instance: "" for the instance itself, "/items/3/id" for a member of
    /// an element; `~` and `/` in member names are written `~0` and `~1`.
    package let path: String
    /// The schema keyword that failed: `type`, `required`, `maxLength`…; "" for a check of a JSON-RPC message's
    /// own shape, which no schema keyword makes.
    package let keyword: String
    /// What is wrong there, without the path: "missing required member \"seq\"".
    package let message: String

    package init(path: String, keyword: String = "", message: String) {
        self.path = path
        self.keyword = keyword
        self.message = message
    }

    /// The path's tokens, unescaped: `["a/b", "0"]` for "/a~1b/0".
    package var pathTokens: [String] {
        JSONPointer(parsing: path)?.tokens ?? []
    }

    /// "/items/3/id: must be …", or just the message when the violation is about the instance itself.
    package var description: String {
        path.isEmpty ? message : "\(path): \(message)"
    }

    /// The same violation seen from a value that holds the instance at `prefix` ("/params", "/error").
    package func nested(under prefix: String) -> SchemaViolation {
        SchemaViolation(path: prefix + path, keyword: keyword, message: message)
    }
}
