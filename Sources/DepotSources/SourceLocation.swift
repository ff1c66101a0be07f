import DepotJSON

/// Where depotd's collection lives, as given by `--source`: `file:PATH` (a relative path is resolved against
/// a base directory), or a `file://` URI with an absolute path (`file:///srv/items.json`,
/// `file://localhost/srv/items.json`), which is percent-decoded; or an `http://` or `https://` URL. The scheme is
/// case-insensitive. `script:PATH` plays a stored stream of collections (see `StreamScript`). A `postgres://` or
/// `postgresql://` URI names a table in PostgreSQL (see `PostgresAddress`).
public enum SourceLocation: Sendable, Equatable, CustomStringConvertible {
    case file(path: String)
    case http(HTTPAddress)
    case postgres(PostgresAddress)
    case script(path: String)

    /// Why a source value cannot be used, with an example of one that can. `problem` is the message without
    /// its subject, so a caller can say where the value came from (`--source "x" is not supported: …`).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The value as given.
        public let uri: String
        /// What is wrong with it and what to write instead: `is not supported: use file:PATH for a JSON file`.
        public let problem: String

        public init(uri: String, problem: String) {
            self.uri = uri
            self.problem = problem
        }

        /// `source "ftp://x" is not supported: …`, or `the source is empty: give file:PATH`.
        public var description: String {
            uri.isEmpty ? "the source \(problem)" : "source \"\(uri)\" \(problem)"
        }
    }

    /// Parses a source URI. A relative `file:` path is resolved against `baseDirectory`.
    public init(parsing uri: String, workingDirectory baseDirectory: String) throws(ParseError) {
        func fail(_ problem: String) -> ParseError { ParseError(uri: uri, problem: problem) }
        guard !uri.isEmpty else { throw fail("is empty: give file:PATH or an https:// URL") }
        if Self.dropPrefixIgnoringCase("http://", from: uri) != nil || Self.dropPrefixIgnoringCase("https://", from: uri) != nil {
            do {
                self = .http(try HTTPAddress(parsing: uri))
                return
            } catch {
                // The URL may hold a password or a key; the message shows it without them.
                throw ParseError(uri: HTTPAddress.redacted(uri), problem: error.description)
            }
        }
        if PostgresAddress.isPostgres(uri) {
            do {
                self = .postgres(try PostgresAddress(parsing: uri))
                return
            } catch {
                throw ParseError(uri: PostgresAddress.redacted(uri), problem: error.description)
            }
        }
        if let script = Self.dropPrefixIgnoringCase("script:", from: uri) {
            guard !script.isEmpty else { throw fail("names no file; write script:PATH, as in script:/etc/depot/stream.json") }
            self = .script(path: Self.absolute(script, in: baseDirectory))
            return
        }
        guard let rest = Self.dropPrefixIgnoringCase("file:", from: uri) else {
            let hint = uri.contains(":") ? "" : "; did you mean file:\(uri)?"
            throw fail(
                "is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream\(hint)")
        }
        guard rest.hasPrefix("//") else {
            guard !rest.isEmpty else { throw fail("names no file; write file:PATH, as in file:/var/lib/depot/items.json") }
            self = .file(path: Self.absolute(rest, in: baseDirectory))
            return
        }
        var afterSlashes = rest.dropFirst(2)
        guard !afterSlashes.isEmpty, afterSlashes.lowercased() != "localhost" else {
            throw fail("names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json")
        }
        if let localhost = Self.dropPrefixIgnoringCase("localhost/", from: String(afterSlashes)) {
            afterSlashes = Substring("/" + localhost)
        }
        guard afterSlashes.hasPrefix("/") else {
            throw fail("needs an absolute path after file://, as in file:///var/lib/depot/items.json; for a relative path write file:\(afterSlashes)")
        }
        self = .file(path: try Self.percentDecoded(afterSlashes, failing: fail))
    }

    public var description: String {
        switch self {
        case .file(let path): "file:\(path)"
        case .http(let address): address.description
        case .postgres(let address): address.description
        case .script(let path): "script:\(path)"
        }
    }

    /// `text` without its leading `prefix`, compared ignoring ASCII case; nil when it does not start with it.
    private static func dropPrefixIgnoringCase(_ prefix: String, from text: String) -> String? {
        guard text.utf8.count >= prefix.utf8.count,
            text.utf8.prefix(prefix.utf8.count).elementsEqual(prefix.utf8, by: { lowercase($0) == $1 })
        else { return nil }
        return String(decoding: text.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// The path with `%XX` escapes decoded (RFC 3986); a `%` not followed by two hex digits, a `%00`, or
    /// bytes that are not UTF-8 are errors.
    private static func percentDecoded(
        _ path: Substring,
        failing fail: (String) -> ParseError
    ) throws(ParseError) -> String {
        do {
            return try PercentEncoding.decoded(path)
        } catch {
            switch error {
            case .badEscape(let escape):
                throw fail("has an invalid percent escape \"\(escape)\": % must be followed by two hex digits; write %25 for a % itself")
            case .nul: throw fail("has %00 in its path, and a path cannot contain a NUL byte")
            case .notUTF8: throw fail("has percent escapes that do not decode to UTF-8 text")
            }
        }
    }

    private static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}
