/// Where depotd's collection lives, as given by `--source`: `file:PATH` (or `file://` with an absolute path).
public enum SourceLocation: Sendable, Equatable, CustomStringConvertible {
    case file(path: String)

    /// Why a `--source` value cannot be used, with an example of one that can.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Parses a source URI. A relative file path is resolved against `workingDirectory`.
    public init(parsing uri: String, workingDirectory: String) throws(ParseError) {
        if uri.hasPrefix("file://") {
            let path = String(uri.dropFirst("file://".count))
            guard path.hasPrefix("/") else {
                throw ParseError(description: "source \"\(uri)\": a file:// URI needs an absolute path, as in file:///var/lib/depot/items.json; for a relative path write file:\(path)")
            }
            self = .file(path: path)
        } else if uri.hasPrefix("file:") {
            let path = String(uri.dropFirst("file:".count))
            guard !path.isEmpty else {
                throw ParseError(description: "source \"\(uri)\" names no file; write file:PATH, as in file:/var/lib/depot/items.json")
            }
            self = .file(path: Self.absolute(path, in: workingDirectory))
        } else {
            let hint = uri.contains(":") ? "" : "; did you mean file:\(uri)?"
            throw ParseError(description: "source \"\(uri)\" is not supported: use file:PATH for a JSON file\(hint)")
        }
    }

    public var description: String {
        switch self {
        case .file(let path): "file:\(path)"
        }
    }

    private static func absolute(_ path: String, in workingDirectory: String) -> String {
        if path.hasPrefix("/") { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return workingDirectory.hasSuffix("/") ? workingDirectory + relative : workingDirectory + "/" + relative
    }
}
