import DepotJSON
import DepotPlatform

/// The settings a JSON config file may hold; every key is optional, and a key it does not know, or a key
/// given twice, is an error, so a typo never goes unnoticed.
///
/// ```json
/// {"socket": "/run/depot/depotd.sock", "source": "file:/srv/items.json", "idField": "id",
///  "maxMessageBytes": 1048576, "maxBatchRequests": 256, "subscriberQueue": 256, "socketMode": "0660", "logLevel": "info",
///  "initialLoad": true, "startupStrategy": "returnMultipleTimes", "cache": true, "refreshInterval": "auto", "watchFile": true}
/// ```
///
/// Writes are checked by `itemSchema` (a JSON Schema file) and `maxItemBytes`. An `http(s)://` source adds `itemsPath`,
/// `deleteURL`, `putURL`, `patchURL`, `headers`, `headerFiles`, `headerCredentials`,
/// `connectTimeout`, `requestTimeout` (seconds), `maxResponseBytes` and `maxRedirects`.
public struct ConfigurationFile: Sendable, Equatable {
    public var socket: String?
    /// As written; a relative `file:` path is resolved against the config file's directory by `DaemonSettings`.
    public var source: String?
    public var idField: String?
    public var maxMessageBytes: Int?
    public var subscriberQueue: Int?
    public var subscriberQueueBytes: Int?
    public var replayStates: Int?
    public var replayBytes: Int?
    public var maxBatchRequests: Int?
    public var maxBatchAnswerBytes: Int?
    public var maxConnections: Int?
    public var maxConnectionsPerUser: Int?
    public var partialLineTimeout: Double?
    public var maxPendingRequests: Int?
    public var maxSubscriptions: Int?
    public var maxUnreadAnswerBytes: Int?
    public var maxMemoryPerUser: Int?
    public var maxUnfinishedLineBytes: Int?
    public var socketMode: String?
    public var logLevel: String?
    public var initialLoad: Bool?
    public var startupStrategy: String?
    public var cache: Bool?
    /// Seconds, or the string `auto`.
    public var refreshInterval: RefreshIntervalText?
    public var refreshJitter: Double?
    public var refreshWhen: String?
    /// Seconds.
    public var retryMax: Double?
    public var watchFile: Bool?
    public var itemsPath: String?
    public var deleteURL: String?
    public var putURL: String?
    public var patchURL: String?
    /// The item schema's file; relative to the config file.
    public var itemSchema: String?
    public var maxItemBytes: Int?
    /// Header names and values, in the file's order.
    public var headers: [NamedString] = []
    /// Header names and the files that hold their values; a relative path is resolved by `DaemonSettings`.
    public var headerFiles: [NamedString] = []
    /// Header names and the systemd credentials that hold their values.
    public var headerCredentials: [NamedString] = []
    /// Seconds, as a number (fractions allowed).
    public var connectTimeout: Double?
    public var requestTimeout: Double?
    public var maxResponseBytes: Int?
    public var maxRedirects: Int?
    /// A PostgreSQL source's password file; relative to the config file.
    public var postgresPasswordFile: String?
    public var postgresReplicas: [String]?
    /// Principals by access level (`read`, `write`, `admin`) and by method granted alone (`remove`, `put`, `patch`,
    /// `apply`), as given.
    public var access: [String: [String]] = [:]

    /// One member of an object of strings, such as `"headers"`.
    public struct NamedString: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    public static let keys = [
        "socket", "source", "idField", "maxMessageBytes", "maxBatchRequests", "maxBatchAnswerBytes", "maxConnections", "maxConnectionsPerUser",
        "partialLineTimeout", "maxPendingRequests", "maxSubscriptions", "maxUnreadAnswerBytes", "maxMemoryPerUser", "maxUnfinishedLineBytes",
        "subscriberQueue", "subscriberQueueBytes",
        "replayStates",
        "replayBytes", "socketMode", "logLevel",
        "initialLoad",
        "startupStrategy", "cache", "refreshInterval", "refreshJitter", "refreshWhen", "retryMax", "watchFile",
        "itemsPath", "deleteURL", "putURL", "patchURL", "itemSchema", "maxItemBytes", "headers", "headerFiles", "headerCredentials", "connectTimeout",
        "requestTimeout", "maxResponseBytes",
        "maxRedirects", "postgresPasswordFile", "postgresReplicas", "access",
    ]

    public init() {}

    /// Reads and checks the file at `path`.
    public init(contentsOf path: String) throws(ConfigurationError) {
        let bytes: [UInt8]
        do {
            bytes = try Files.readAll(path)
        } catch {
            throw ConfigurationError("config file: \(error)")
        }
        try self.init(parsing: bytes, path: path)
    }

    /// Parses a config file's text; `path` names it in errors. Values are taken as given and checked by
    /// `DaemonSettings`, except integers too large to hold, which are out of any range.
    public init(parsing bytes: [UInt8], path: String) throws(ConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ConfigurationError("config file \(path) is not valid JSON: \(error) (\(error.position(in: bytes)))")
        }
        guard case .object(let object) = value else {
            throw ConfigurationError("config file \(path) must hold a JSON object of settings, not \(value.typeName)")
        }
        var seen: Set<String> = []
        for key in object.keys {
            guard Self.keys.contains(key) else {
                throw ConfigurationError("config file \(path) has an unknown key \"\(key)\"; the keys are \(Self.keys.joined(separator: ", "))")
            }
            guard seen.insert(key).inserted else {
                throw ConfigurationError("config file \(path) has the key \"\(key)\" more than once; keep only one")
            }
        }
        let members = ConfigurationMembers(object: object, path: path)
        socket = try members.string("socket")
        source = try members.string("source")
        idField = try members.string("idField")
        maxMessageBytes = try members.integer("maxMessageBytes", .maxMessageBytes)
        subscriberQueue = try members.integer("subscriberQueue", .subscriberQueue)
        subscriberQueueBytes = try members.integer("subscriberQueueBytes", .subscriberQueueBytes)
        replayStates = try members.integer("replayStates", .replayStates)
        replayBytes = try members.integer("replayBytes", .replayBytes)
        maxBatchRequests = try members.integer("maxBatchRequests", .maxBatchRequests)
        maxBatchAnswerBytes = try members.integer("maxBatchAnswerBytes", .maxBatchAnswerBytes)
        maxConnections = try members.integer("maxConnections", .maxConnections)
        maxConnectionsPerUser = try members.integer("maxConnectionsPerUser", .maxConnectionsPerUser)
        partialLineTimeout = try members.seconds("partialLineTimeout")
        maxPendingRequests = try members.integer("maxPendingRequests", .maxPendingRequests)
        maxSubscriptions = try members.integer("maxSubscriptions", .maxSubscriptions)
        maxUnreadAnswerBytes = try members.integer("maxUnreadAnswerBytes", .maxUnreadAnswerBytes)
        maxMemoryPerUser = try members.integer("maxMemoryPerUser", .maxMemoryPerUser)
        maxUnfinishedLineBytes = try members.integer("maxUnfinishedLineBytes", .maxUnfinishedLineBytes)
        socketMode = try members.string("socketMode")
        logLevel = try members.string("logLevel")
        itemsPath = try members.string("itemsPath")
        deleteURL = try members.string("deleteURL")
        putURL = try members.string("putURL")
        patchURL = try members.string("patchURL")
        itemSchema = try members.string("itemSchema")
        maxItemBytes = try members.integer("maxItemBytes", .maxItemBytes)
        headers = try members.namedStrings("headers")
        headerFiles = try members.namedStrings("headerFiles")
        headerCredentials = try members.namedStrings("headerCredentials")
        connectTimeout = try members.seconds("connectTimeout")
        requestTimeout = try members.seconds("requestTimeout")
        maxResponseBytes = try members.integer("maxResponseBytes", .maxResponseBytes)
        maxRedirects = try members.integer("maxRedirects", .maxRedirects)
        postgresPasswordFile = try members.string("postgresPasswordFile")
        postgresReplicas = try members.strings("postgresReplicas")
        initialLoad = try members.flag("initialLoad")
        startupStrategy = try members.string("startupStrategy")
        cache = try members.flag("cache")
        refreshInterval = try members.refreshInterval("refreshInterval")
        refreshJitter = try members.number("refreshJitter", example: "0.1")
        refreshWhen = try members.string("refreshWhen")
        retryMax = try members.seconds("retryMax")
        watchFile = try members.flag("watchFile")
        access = try members.access("access")
    }
}
