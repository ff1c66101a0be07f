/// A PostgreSQL database and the table in it that holds the collection, as a libpq-style URI:
/// `postgres://USER@HOST:PORT/DATABASE?table=NAME&sslmode=MODE` (`postgresql://` too). Checked when the settings
/// are read, with what to write instead, rather than when the first connection fails.
///
/// - The host is a name, an IPv4 address or `[IPv6]`; left out (`postgres://USER@/DATABASE`), or given as
///   `?host=/DIRECTORY` or a percent-encoded path (`%2Frun%2Fpostgresql`), it is the directory of the server's
///   Unix socket, `/run/postgresql` unless said. The port is 5432 unless said. One host only: for several, put a
///   pooler or a virtual address in front.
/// - The user is depotd's own user name when left out; the database is the user's name when left out, as libpq
///   does.
/// - A password is refused in the URI: command lines and config files are readable by others, and the URI
///   appears in logs. It is read from a file or a systemd credential instead.
/// - `table` is `NAME` or `SCHEMA.NAME`, plain identifiers (letters, digits, `_`, `$`; at most 63 bytes each),
///   `items` unless said. Quoted identifiers are not supported.
/// - `sslmode` is libpq's: `disable`, `allow`, `prefer` (the default), `require`, `verify-ca`, `verify-full`.
/// - The table's shape: `id_column` (`id` unless said) holds each item's id as text, its primary key;
///   `doc_column` (`doc` unless said, `json` or `jsonb`) the item, its id member included; `doc_column=*` makes
///   each row's columns the item's members instead, in column order.
/// - `connect_timeout` (seconds, 10), `poll_interval` (seconds between reads of the change log without a wake-up,
///   which also notice a connection lost silently; 10, down to 0.05) and `retention` (seconds a change stays in the
///   log; 86400): a daemon away longer than that reloads in full.
/// - `feed`: `listen` (the default) wakes the daemon by LISTEN/NOTIFY on a session of its own; `poll` reads the log
///   every `poll_interval` only, with nothing kept in the session, so that a pooler in transaction mode can carry it.
/// - `max_lag` (a replica's only, `--postgres-replica`): seconds of replay lag past which the replica is passed over
///   for the next one or the primary; 5, from 0 to 86400, up to three decimals.
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    /// Where the server listens.
    public enum Endpoint: Sendable, Hashable {
        /// A host name or address and a port.
        case tcp(host: String, port: Int)
        /// The directory of the server's socket and the port that names it (`DIRECTORY/.s.PGSQL.PORT`).
        case unixSocket(directory: String, port: Int)

        /// The socket file's path, for `.unixSocket`.
        public var socketPath: String? {
            guard case .unixSocket(let directory, let port) = self else { return nil }
            return Self.socketPath(directory: directory, port: port)
        }

        /// `DIRECTORY/.s.PGSQL.PORT`, the socket file a server listening on `port` makes in `directory`.
        public static func socketPath(directory: String, port: Int) -> String {
            (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/.s.PGSQL.\(port)"
        }
    }

    /// How a daemon learns of changes in the table.
    public enum Feed: String, Sendable, Hashable, CaseIterable {
        /// LISTEN on a session of its own, and a read of the log every `pollInterval` besides.
        case listen
        /// A read of the log every `pollInterval` only: no LISTEN, nothing kept in the session between transactions.
        case poll
    }

    /// libpq's `sslmode`: whether TLS is tried or required, and how much of the server's certificate is checked.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public let endpoint: Endpoint
    /// The user to connect as; nil: depotd's own user name.
    public let user: String?
    /// The database; nil: the user's name.
    public let database: String?
    /// The table's schema, when the table was given as `SCHEMA.NAME`.
    public let schema: String?
    public let table: String
    public let tlsMode: TLSMode
    /// The column holding each item's id (text, the primary key).
    public let idColumn: String
    /// The column holding each item as JSON; nil: the whole row is the item (`doc_column=*`).
    public let docColumn: String?
    /// Seconds to wait for a connection to be set up.
    public let connectTimeout: Int
    /// The time between reads of the change log when no wake-up came; also how soon a silently lost connection is
    /// noticed.
    public let pollInterval: Duration
    /// How the daemon learns of changes.
    public let feed: Feed
    /// Seconds a change stays in the log before a daemon prunes it.
    public let retention: Int
    /// A replica's bound on its replay lag (`max_lag`); nil when not given (`defaultMaxLag` for a replica; a
    /// primary takes none).
    public let maxLag: Duration?

    public static let defaultPort = 5432
    public static let defaultIDColumn = "id"
    public static let defaultDocColumn = "doc"
    public static let defaultConnectTimeout = 10
    public static let defaultPollInterval = Duration.seconds(10)
    /// The shortest poll interval: a fleet polling more often would cost the database more than LISTEN does.
    public static let shortestPollInterval = Duration.milliseconds(50)
    public static let defaultRetention = 86_400
    /// How far behind its primary a replica may be read from: a change reaches a daemon reading it at most this much
    /// later than one reading the primary.
    public static let defaultMaxLag = Duration.seconds(5)
    public static let defaultSocketDirectory = "/run/postgresql"
    public static let defaultTable = "items"

    /// The table as SQL names it, each part double-quoted: `"public"."items"`.
    public var quotedTable: String {
        (schema.map { "\"\($0)\"." } ?? "") + "\"\(table)\""
    }

    /// The address as a URI, with every part that was given or defaulted: what logs and messages show. It never
    /// holds a secret, since a password is refused.
    public var description: String {
        var text = "postgres://" + (user.map { PercentEncoding.encoded($0) + "@" } ?? "")
        var query = [String]()
        switch endpoint {
        case .tcp(let host, let port):
            text += (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        case .unixSocket(let directory, let port):
            text += ":\(port)"
            query.append("host=" + directory)
        }
        text += "/" + (database.map(PercentEncoding.encoded) ?? "")
        query.append("table=" + (schema.map { $0 + "." } ?? "") + table)
        if tlsMode != .prefer { query.append("sslmode=" + tlsMode.rawValue) }
        if idColumn != Self.defaultIDColumn { query.append("id_column=" + idColumn) }
        if docColumn != Self.defaultDocColumn { query.append("doc_column=" + (docColumn ?? "*")) }
        if connectTimeout != Self.defaultConnectTimeout { query.append("connect_timeout=\(connectTimeout)") }
        if feed != .listen { query.append("feed=" + feed.rawValue) }
        if pollInterval != Self.defaultPollInterval { query.append("poll_interval=" + Self.secondsText(pollInterval)) }
        if retention != Self.defaultRetention { query.append("retention=\(retention)") }
        if let maxLag { query.append("max_lag=" + Self.secondsText(maxLag)) }
        return text + "?" + query.joined(separator: "&")
    }

    /// `text` with a password in its user information (`USER:SECRET@`) or its query (`password=SECRET`) replaced by
    /// `***`, for a message that quotes a refused URI.
    public static func redacted(_ text: String) -> String {
        var result = text
        if let rest = splitScheme(result), let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            result.replaceSubrange(result.index(after: colon)..<at, with: "***")
        }
        if let query = result.firstIndex(of: "?") {
            let parameters = result[result.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                parameter.hasPrefix("password=") ? "password=***" : String(parameter)
            }
            result = result[...query] + parameters.joined(separator: "&")
        }
        return result
    }

    /// Whether `text` is meant as a PostgreSQL address (its scheme is `postgres` or `postgresql`).
    public static func isPostgres(_ text: String) -> Bool {
        splitScheme(text) != nil
    }

    /// Parses `text`; the error is the problem without its subject, as in `SourceLocation.ParseError`.
    public init(parsing text: String) throws(SettingProblem) {
        guard let rest = Self.splitScheme(text) else {
            throw SettingProblem("is not a postgres:// URI; write postgres://USER@HOST:PORT/DATABASE?table=NAME")
        }
        if rest.contains("#") {
            throw SettingProblem("has a fragment (#…), which a postgres:// URI does not take; remove it")
        }
        let (beforeQuery, queryText) = Self.split(rest, at: "?")
        let (authority, path) = Self.split(beforeQuery, at: "/")
        var hostPart = authority
        var user: String?
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPart = authority[authority.index(after: at)...]
            if userInfo.contains(":") {
                throw SettingProblem(
                    "has a password in it; remove it from the URI and give it in a password file or a systemd credential, "
                        + "which no log or process listing shows"
                )
            }
            guard !userInfo.isEmpty else { throw SettingProblem("has an empty user name before \"@\"; write USER@HOST or leave both out") }
            user = try Self.percentDecoded(userInfo, what: "user name")
        }
        if hostPart.contains(",") {
            throw SettingProblem(
                "lists several hosts; depotd connects to one: put a pooler or a virtual address in front of them and name that"
            )
        }
        var (host, port) = try Self.hostAndPort(hostPart)
        var database: String?
        if let path, !path.isEmpty {
            database = try Self.percentDecoded(path, what: "database name")
        }
        var schema: String?
        var table = Self.defaultTable
        var tlsMode = TLSMode.prefer
        var socketDirectory: String?
        var idColumn = Self.defaultIDColumn
        var docColumn: String? = Self.defaultDocColumn
        var connectTimeout = Self.defaultConnectTimeout
        var pollInterval = Self.defaultPollInterval
        var feed = Feed.listen
        var retention = Self.defaultRetention
        var maxLag: Duration?
        var seen = Set<String>()
        for parameter in (queryText ?? "").split(separator: "&") {
            let (name, value) = Self.split(parameter, at: "=")
            guard let value else { throw SettingProblem("has the parameter \"\(name)\" without a value; write \(name)=VALUE") }
            guard seen.insert(String(name)).inserted else { throw SettingProblem("gives the parameter \"\(name)\" twice") }
            let decoded = try Self.percentDecoded(value, what: "value of \(name)")
            switch name {
            case "table":
                (schema, table) = try Self.qualifiedTable(decoded)
            case "sslmode":
                guard let mode = TLSMode(rawValue: decoded) else {
                    throw SettingProblem(
                        "has sslmode=\(decoded); it is one of " + TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                }
                tlsMode = mode
            case "host":
                guard decoded.hasPrefix("/") else {
                    throw SettingProblem(
                        "has host=\(decoded) in its query; there it names a socket directory (/run/postgresql); put a host name before the port")
                }
                socketDirectory = decoded
            case "port":
                port = try NetworkAuthority.port(Substring(decoded))
            case "user":
                user = decoded
            case "dbname":
                database = decoded
            case "id_column":
                idColumn = try Self.identifier(decoded, parameter: name)
            case "doc_column":
                docColumn = decoded == "*" ? nil : try Self.identifier(decoded, parameter: name)
            case "connect_timeout":
                connectTimeout = try Self.seconds(decoded, parameter: name, range: 1...3600)
            case "poll_interval":
                pollInterval = try Self.interval(decoded, parameter: name, shortest: Self.shortestPollInterval)
            case "max_lag":
                maxLag = try Self.interval(decoded, parameter: name, shortest: .zero)
            case "feed":
                guard let chosen = Feed(rawValue: decoded) else {
                    throw SettingProblem(
                        "has feed=\(decoded); it is listen (LISTEN/NOTIFY on a session of its own) or poll (reads of the log only, for a pooler in transaction mode)"
                    )
                }
                feed = chosen
            case "retention":
                retention = try Self.seconds(decoded, parameter: name, range: 60...31_536_000)
            case "password", "passfile":
                throw SettingProblem(
                    "has \(name) in its query; give the password in a password file or a systemd credential instead, which no log or process listing shows"
                )
            default:
                throw SettingProblem(
                    "has the parameter \"\(name)\", which depotd does not take; it takes table, id_column, doc_column, sslmode, host, port, user, dbname, "
                        + "connect_timeout, poll_interval, feed, retention and, for a replica, max_lag")
            }
        }
        if let socketDirectory {
            guard host == nil || host?.hasPrefix("/") == true else {
                throw SettingProblem("names both a host (\(host ?? "")) and a socket directory (host=\(socketDirectory)); keep one")
            }
            host = socketDirectory
        }
        let resolvedPort = port ?? Self.defaultPort
        if let host, !host.hasPrefix("/") {
            endpoint = .tcp(host: host, port: resolvedPort)
        } else {
            endpoint = .unixSocket(directory: host ?? Self.defaultSocketDirectory, port: resolvedPort)
        }
        if endpoint.socketPath.map({ $0.utf8.count > 107 }) == true {
            throw SettingProblem("names a socket directory too long for a Unix socket path (at most 107 bytes with /.s.PGSQL.PORT)")
        }
        if case .unixSocket = endpoint, tlsMode == .require || tlsMode == .verifyCA || tlsMode == .verifyFull {
            throw SettingProblem(
                "asks for sslmode=\(tlsMode.rawValue) over a Unix socket, where PostgreSQL does not offer TLS; use a host name, or sslmode=disable")
        }
        self.user = user
        self.database = database
        self.schema = schema
        self.table = table
        self.tlsMode = tlsMode
        if idColumn == docColumn {
            throw SettingProblem("uses the column \(idColumn) for both the id and the item; give doc_column another one")
        }
        self.idColumn = idColumn
        self.docColumn = docColumn
        self.connectTimeout = connectTimeout
        self.pollInterval = pollInterval
        self.feed = feed
        self.retention = retention
        self.maxLag = maxLag
    }

    /// A column, double-quoted for SQL.
    public static func quoted(_ identifier: String) -> String {
        "\"\(identifier)\""
    }

    /// A plain identifier given as parameter `parameter`.
    private static func identifier(_ text: String, parameter: Substring) throws(SettingProblem) -> String {
        guard Self.isIdentifier(Substring(text)) else {
            throw SettingProblem(
                "has \(parameter)=\(text); a column is a plain SQL identifier: letters, digits, _ and $, not starting with a digit, at most 63 bytes"
            )
        }
        return text
    }

    /// Whole seconds within `range`, given as parameter `parameter`.
    private static func seconds(_ text: String, parameter: Substring, range: ClosedRange<Int>) throws(SettingProblem) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw SettingProblem("has \(parameter)=\(text); it is a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// Seconds, with up to three decimals, from `shortest` to a day, given as parameter `parameter`.
    private static func interval(_ text: String, parameter: Substring, shortest: Duration) throws(SettingProblem) -> Duration {
        let shortestText = Self.secondsText(shortest)
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        guard digits, parts[0].count <= 6, parts.count == 1 || parts[1].count <= 3, let whole = Int64(parts[0]),
            let fraction = Int64((parts.count == 2 ? parts[1] : "") + String(repeating: "0", count: 3 - (parts.count == 2 ? parts[1].count : 0))),
            case let interval = Duration.milliseconds(whole * 1000 + fraction),
            interval >= shortest, interval <= .seconds(86_400)
        else {
            throw SettingProblem("has \(parameter)=\(text); it is a number of seconds (up to three decimals) from \(shortestText) to 86400")
        }
        return interval
    }

    /// `interval` as seconds, with the decimals it needs: `10`, `0.5`, `0.05`.
    public static func secondsText(_ interval: Duration) -> String {
        let (seconds, attoseconds) = interval.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        guard milliseconds != 0 else { return "\(seconds)" }
        var decimals = String(milliseconds + 1000).dropFirst()
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(seconds).\(decimals)"
    }

    /// What follows `postgres://` or `postgresql://` (the scheme in any case); nil for another scheme.
    private static func splitScheme(_ text: String) -> Substring? {
        for scheme in ["postgresql://", "postgres://"] where text.utf8.count >= scheme.utf8.count {
            if text.prefix(scheme.count).lowercased() == scheme { return text.dropFirst(scheme.count) }
        }
        return nil
    }

    /// `text` before the first `separator`, and after it (nil when there is none).
    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    /// The host (nil when left out; a decoded path when percent-encoded) and the port (nil when left out).
    private static func hostAndPort(_ text: Substring) throws(SettingProblem) -> (String?, Int?) {
        let authority = try NetworkAuthority(splitting: text, keepBrackets: false)
        let host = authority.host.isEmpty ? nil : try percentDecoded(authority.host, what: "host")
        guard let port = authority.port else { return (host, nil) }
        return (host, try NetworkAuthority.port(port))
    }

    /// `NAME` or `SCHEMA.NAME`, each a plain identifier.
    private static func qualifiedTable(_ text: String) throws(SettingProblem) -> (String?, String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw SettingProblem("has table=\(text); write NAME or SCHEMA.NAME") }
        for part in parts {
            guard Self.isIdentifier(part) else {
                throw SettingProblem(
                    "has table=\(text); a table (and its schema) is a plain SQL identifier: letters, digits, _ and $, "
                        + "not starting with a digit, at most 63 bytes"
                )
            }
        }
        return parts.count == 2 ? (String(parts[0]), String(parts[1])) : (nil, String(parts[0]))
    }

    /// Letters, digits, `_` and `$`, not starting with a digit, at most 63 bytes: an identifier SQL takes as it is.
    private static func isIdentifier(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || Self.isLetter(first) else { return false }
        return text.unicodeScalars.allSatisfy({ $0 == "_" || $0 == "$" || Self.isLetter($0) || ("0"..."9").contains($0) }) && text.utf8.count <= 63
    }

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// `text` with its `%XX` escapes decoded; refuses a bad escape, a result that is not UTF-8, and NUL.
    private static func percentDecoded(_ text: Substring, what: String) throws(SettingProblem) -> String {
        do {
            return try PercentEncoding.decoded(text)
        } catch {
            switch error {
            case .badEscape: throw SettingProblem("has a \"%\" in its \(what) that is not followed by two hex digits; write %25 for \"%\"")
            case .nul, .notUTF8: throw SettingProblem("has a \(what) that is not UTF-8 text once decoded")
            }
        }
    }
}
