/// An `http://` or `https://` URL to fetch the collection from (or to delete from), checked when the settings
/// are read rather than when the first request fails.
///
/// Credentials never belong in it: a user name or password (`https://user:pass@host`) is refused, since
/// command lines and config files are readable by others; send them as a header read from a file instead.
/// Query values may still hold a key, so `description` shows only the query's names (`?key=…`): that is the
/// form every log line and error message uses.
public struct HTTPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The URL to request: as given, with the scheme in lower case.
    public let url: String
    /// `http` or `https`.
    public let scheme: String
    /// The URL without the query's values: safe for logs and messages.
    public let description: String

    /// Parses `text`; the error is the problem without its subject, as in `SourceLocation.ParseError`.
    public init(parsing text: String) throws(SettingProblem) {
        guard let (scheme, rest) = Self.splitScheme(text) else {
            throw SettingProblem("is not an http:// or https:// URL")
        }
        if let bad = text.unicodeScalars.first(where: { !Self.isAllowed($0) }) {
            throw SettingProblem("has the character \(Self.name(of: bad)), which must be percent-encoded in a URL")
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let remainder = rest[authorityEnd...]
        if authority.contains("@") {
            throw SettingProblem(
                "has a user name or password in it; remove it from the URL and send credentials as a header "
                    + "read from a file (\"headerFiles\" or \"headerCredentials\" in the config file)"
            )
        }
        try Self.checkHostAndPort(authority, scheme: scheme)
        if remainder.contains("#") {
            throw SettingProblem("has a fragment (#…), which is never sent to a server; remove it")
        }
        self.scheme = scheme
        self.url = scheme + "://" + rest
        self.description = scheme + "://" + authority + Self.redactedPathAndQuery(remainder)
    }

    /// `text` made fit for a message even when it is not a valid URL: without anything that looks like a user
    /// name or password, and with the query's values replaced by `…`.
    public static func redacted(_ text: String) -> String {
        guard let (scheme, rest) = splitScheme(text) else { return text }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = "…@" + authority[authority.index(after: at)...]
        }
        return scheme + "://" + authority + redactedPathAndQuery(rest[authorityEnd...])
    }

    /// The scheme in lower case and what follows `://`; nil unless the scheme is http or https.
    private static func splitScheme(_ text: String) -> (String, Substring)? {
        for scheme in ["http", "https"] {
            let prefix = scheme + "://"
            if text.utf8.count >= prefix.utf8.count, text.prefix(prefix.count).lowercased() == prefix {
                return (scheme, text.dropFirst(prefix.count))
            }
        }
        return nil
    }

    private static func checkHostAndPort(_ authority: Substring, scheme: String) throws(SettingProblem) {
        let parts = try NetworkAuthority(splitting: authority, keepBrackets: true)
        guard !parts.host.isEmpty else {
            throw SettingProblem("names no host; write \(scheme)://HOST/PATH, as in \(scheme)://example.com/items")
        }
        if let port = parts.port {
            _ = try NetworkAuthority.port(port)
        }
    }

    /// The path as given, and the query's names each followed by `=…` when it had a value.
    private static func redactedPathAndQuery(_ remainder: Substring) -> String {
        let withoutFragment = remainder.prefix { $0 != "#" }
        guard let question = withoutFragment.firstIndex(of: "?") else {
            return withoutFragment.isEmpty ? "/" : String(withoutFragment)
        }
        let path = withoutFragment[..<question]
        let query = withoutFragment[withoutFragment.index(after: question)...]
        let names = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.contains("=") ? parameter.prefix { $0 != "=" } + "=…" : String(parameter)
        }
        return (path.isEmpty ? "/" : String(path)) + "?" + names.joined(separator: "&")
    }

    /// Printable ASCII except the characters RFC 3986 never allows unescaped (space, `"`, `<`, `>`, `\`, `^`,
    /// `` ` ``, `{`, `|`, `}`).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && scalar.value < 0x7F && !"\"<>\\^`{|}".unicodeScalars.contains(scalar)
    }

    private static func name(of scalar: Unicode.Scalar) -> String {
        switch scalar {
        case " ": "space (write %20)"
        case "\t": "tab"
        case "\n", "\r": "line break"
        default:
            scalar.value < 0x20 || scalar.value == 0x7F
                ? "U+00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true) : "\"\(scalar)\""
        }
    }
}
