public import ArgumentParser

/// depotd's command-line flags. Each one, when given, overrides the environment and the config file.
public struct DaemonOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "The Unix socket to listen on. Env: DEPOT_SOCKET.",
            discussion:
                "Default: $RUNTIME_DIRECTORY/depotd.sock, else $XDG_RUNTIME_DIR/depot/depotd.sock, else /run/depot/depotd.sock for root and /tmp/depot-$UID/depotd.sock for others.",
            valueName: "path"
        ))
    public var socket: String?

    @Option(
        help: ArgumentHelp(
            "Where the collection comes from: file:PATH, a JSON array of objects; an http:// or https:// URL that answers GET with one; or script:PATH, a stored stream of collections played from start-up (README, \"Pipelines\"). Env: DEPOT_SOURCE.",
            discussion:
                "Default: items.json in the state directory ($STATE_DIRECTORY, else $XDG_STATE_HOME/depot, else ~/.local/state/depot, /var/lib/depot for root), seeded with the 151 first-generation Pokémon on first run.",
            valueName: "uri"
        ))
    public var source: String?

    @Option(
        name: .customLong("id-field"),
        help: ArgumentHelp("The member of each item that holds its id (a string or an integer).", valueName: "name"))
    public var idField: String?

    @Option(
        help: ArgumentHelp(
            "A JSON config file; its keys are the long flag names in camelCase (socket, source, idField, maxMessageBytes, maxBatchRequests, maxBatchAnswerBytes, maxConnections, maxConnectionsPerUser, partialLineTimeout, maxPendingRequests, maxSubscriptions, maxUnreadAnswerBytes, maxMemoryPerUser, maxUnfinishedLineBytes, subscriberQueue, subscriberQueueBytes, replayStates, replayBytes, socketMode, logLevel, initialLoad, startupStrategy, cache, refreshInterval, refreshJitter, refreshWhen, retryMax, watchFile, itemsPath, deleteURL, putURL, patchURL, itemSchema, maxItemBytes, connectTimeout, requestTimeout, maxResponseBytes, maxRedirects, postgresPasswordFile, postgresReplicas), and, for an HTTP source, headers, headerFiles and headerCredentials; \"access\": {\"read\": [principal…], \"write\": […], \"admin\": […], \"put\": […], …} as the --…-access flags.",
            discussion:
                "A relative path is read from the working directory. A relative file: source in the file is resolved against the file's own directory, so the file can sit next to its collection; --source and DEPOT_SOURCE stay relative to the working directory.",
            valueName: "file"
        ))
    public var config: String?

    @Option(
        name: .customLong("max-message-bytes"),
        help: ArgumentHelp(
            "The longest request line accepted, 64 to 1073741824; a longer one is answered with an error and its connection closed. Default: 1048576 (1 MiB).",
            valueName: "bytes"))
    public var maxMessageBytes: Int?

    @Option(
        name: .customLong("max-batch-requests"),
        help: ArgumentHelp(
            "The most requests one batch may hold, 1 to 65536; a larger batch is refused whole, before any of it runs. Default: 256.",
            valueName: "requests"))
    public var maxBatchRequests: Int?

    @Option(
        name: .customLong("max-batch-answer-bytes"),
        help: ArgumentHelp(
            "Bytes of answers one batch's line may carry, 1024 to 1073741824; past it the remaining answers are replaced by a limitExceeded error (the calls still ran). Default: 1048576 (1 MiB).",
            valueName: "bytes"))
    public var maxBatchAnswerBytes: Int?

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections open at once, 1 to 1048576; past it a new one gets one limitExceeded error line and is closed. Default: 4096.",
            valueName: "connections"))
    public var maxConnections: Int?

    @Option(
        name: .customLong("max-connections-per-user"),
        help: ArgumentHelp(
            "Connections open at once from one uid (root is exempt), 1 to 1048576; past it, as --max-connections. Default: 1024.",
            valueName: "connections"))
    public var maxConnectionsPerUser: Int?

    @Option(
        name: .customLong("partial-line-timeout"),
        help: ArgumentHelp(
            "Seconds a line may sit unfinished, 0.1 to 3600; past it the connection is closed (a stalled or slow sender). Default: 30.",
            valueName: "seconds"))
    public var partialLineTimeout: Double?

    @Option(
        name: .customLong("max-pending-requests"),
        help: ArgumentHelp(
            "Requests of one connection that may wait for a mutation at once, 1 to 65536 (each call of a batch counts); past it the connection's next lines wait, unread, until one is answered. Default: 64.",
            valueName: "requests"))
    public var maxPendingRequests: Int?

    @Option(
        name: .customLong("max-subscriptions"),
        help: ArgumentHelp(
            "Subscriptions one connection may hold at once, 1 to 65536; one more is refused with limitExceeded. Default: 64.",
            valueName: "subscriptions"))
    public var maxSubscriptions: Int?

    @Option(
        name: .customLong("max-unread-answer-bytes"),
        help: ArgumentHelp(
            "Bytes of answers one connection may leave unread, 65536 to 1099511627776; past it, with more than one answer waiting, the connection is closed and the log says why (one answer always goes, however large). Default: 67108864 (64 MiB).",
            valueName: "bytes"))
    public var maxUnreadAnswerBytes: Int?

    @Option(
        name: .customLong("max-memory-per-user"),
        help: ArgumentHelp(
            "Bytes of depotd's memory the connections of one uid may hold together (root is exempt), 65536 to 1099511627776: lines unfinished or waiting, answers and notifications unread, a state many of them hold counted once; past it the connection that takes more is closed and the log says why. Default: 201326592 (192 MiB, so that with what the books cannot see one uid grows depotd's RSS by at most 256 MiB).",
            valueName: "bytes"))
    public var maxMemoryPerUser: Int?

    @Option(
        name: .customLong("max-unfinished-line-bytes"),
        help: ArgumentHelp(
            "Bytes of unfinished lines from all connections together, 65536 to 1099511627776; past it the connection whose line grows gets a limitExceeded line and is closed. Default: 536870912 (512 MiB).",
            valueName: "bytes"))
    public var maxUnfinishedLineBytes: Int?

    @Option(
        name: .customLong("subscriber-queue"),
        help: ArgumentHelp(
            "States a subscriber may fall behind by, 1 to 1048576; beyond it the oldest are dropped and the next notification says how many were skipped. Default: 256.",
            valueName: "states"))
    public var subscriberQueue: Int?

    @Option(
        name: .customLong("subscriber-queue-bytes"),
        help: ArgumentHelp(
            "Bytes of states a subscriber may fall behind by, 1024 to 1099511627776; beyond it the oldest are dropped as for --subscriber-queue (the newest is always sent, however large). Default: 8388608 (8 MiB).",
            valueName: "bytes"))
    public var subscriberQueueBytes: Int?

    @Option(
        name: .customLong("replay-states"),
        help: ArgumentHelp(
            "Recent states kept so a subscriber can resume after a reconnect (subscribe with since), 1 to 1048576. Default: 1024.",
            valueName: "states"))
    public var replayStates: Int?

    @Option(
        name: .customLong("replay-bytes"),
        help: ArgumentHelp(
            "Bytes of recent states kept for resuming subscribers, 0 to 1099511627776; past it or --replay-states the oldest go, and a subscriber that resumes from before them starts again from the current state. Default: 67108864 (64 MiB).",
            valueName: "bytes"))
    public var replayBytes: Int?

    @Option(
        name: .customLong("socket-mode"),
        help: ArgumentHelp(
            "The socket file's permissions: one to four octal digits, at most 0777. Default: 0660 (owner and group may connect).", valueName: "mode"))
    public var socketMode: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp("trace, debug, info, notice, warning, error or critical. Default: info.", valueName: "level"))
    public var logLevel: String?

    @Option(
        name: .customLong("items-path"),
        help: ArgumentHelp(
            "HTTP source: the member of the response that holds the array of items, or a dotted path such as data.results. Default: the response is the array.",
            valueName: "path"))
    public var itemsPath: String?

    @Option(
        name: .customLong("delete-url"),
        help: ArgumentHelp(
            "HTTP source: where a removal sends DELETE, with {id} where the item's id goes (percent-encoded), as in https://host/items/{id}. Default: none; removals are refused.",
            valueName: "template"))
    public var deleteURL: String?

    @Option(
        name: .customLong("put-url"),
        help: ArgumentHelp(
            "HTTP source: where a put sends PUT with the item as its body, with {id} where the item's id goes (percent-encoded), as in https://host/items/{id}; a patch without --patch-url is sent here too, as the patched item. Default: none; puts are refused.",
            valueName: "template"))
    public var putURL: String?

    @Option(
        name: .customLong("patch-url"),
        help: ArgumentHelp(
            "HTTP source: where a patch sends PATCH with the patch as its body (application/merge-patch+json or application/json-patch+json), with {id} where the item's id goes. Default: none; patches go to --put-url as the patched item.",
            valueName: "template"))
    public var patchURL: String?

    @Option(
        name: .customLong("item-schema"),
        help: ArgumentHelp(
            "A JSON Schema (draft 7) file every item a write leaves must fit: a put, a patch's result, each change of an apply is checked before anything is sent to the source, and refused with every violation (-32009). Items a load brings are checked too and those that do not fit are logged, not refused. Default: none.",
            valueName: "path"))
    public var itemSchema: String?

    @Option(
        name: .customLong("max-item-bytes"),
        help: ArgumentHelp(
            "The largest item a write may leave, as compact JSON, 64 to 1073741824 bytes; a larger one is refused (-32602). Default: 1048576 (1 MiB).",
            valueName: "bytes"))
    public var maxItemBytes: Int?

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp("HTTP source: seconds connecting may take, 0.1 to 600. Default: 10.", valueName: "seconds"))
    public var connectTimeout: Double?

    @Option(
        name: .customLong("request-timeout"),
        help: ArgumentHelp(
            "HTTP source: seconds one whole request may take, body and redirects included, 0.1 to 3600. Default: 30.", valueName: "seconds"))
    public var requestTimeout: Double?

    @Option(
        name: .customLong("max-response-bytes"),
        help: ArgumentHelp(
            "HTTP source: the largest body read, 1024 to 1073741824; reading stops past it and the load fails. Default: 67108864 (64 MiB).",
            valueName: "bytes"))
    public var maxResponseBytes: Int?

    @Option(
        name: .customLong("max-redirects"),
        help: ArgumentHelp("HTTP source: redirects followed, 0 to 20; a redirect loop is refused at once. Default: 5.", valueName: "count"))
    public var maxRedirects: Int?

    @Option(
        name: .customLong("postgres-password-file"),
        help: ArgumentHelp(
            "PostgreSQL source: a file whose first line is the password (a relative path is read from the working directory). Default: the systemd credential postgres-password (LoadCredential=), else none.",
            valueName: "path"))
    public var postgresPasswordFile: String?

    @Option(
        name: .customLong("postgres-replica"),
        help: ArgumentHelp(
            "PostgreSQL source: a hot standby of the source's database that loads and catch-ups read from (postgres://…, the same table and columns; the same password); repeat for several, in order of preference. Writes go to the source; a replica behind what depotd must see, further behind its primary than its max_lag (seconds, a parameter of its URI: 5 unless said), not receiving, promoted or down is passed over for the next or the primary.",
            valueName: "uri"))
    public var postgresReplicas: [String] = []

    @Flag(
        name: .customLong("print-postgres-setup"),
        help:
            "Print the SQL that installs the change feed of the postgres:// source's table (for a DBA to run when depotd may not create it), then exit."
    )
    public var printPostgresSetup = false

    /// nil when neither flag is given, so `"initialLoad"` from the config file applies; either flag overrides it.
    @Flag(
        name: .customLong("initial-load"),
        inversion: .prefixedNo,
        help: "Load the source at start-up (the default), or with --no-initial-load start idle; overrides \"initialLoad\" in the config file."
    )
    public var initialLoad: Bool?

    @Option(
        name: .customLong("startup-strategy"),
        help: ArgumentHelp(
            "How the start-up load combines the on-disk cache and the source: fastestAvailable, upToDateWithFallback or returnMultipleTimes (the default: the cached list at once, then the source's).",
            valueName: "strategy"
        )
    )
    public var startupStrategy: String?

    /// nil when neither flag is given, so `"cache"` from the config file applies.
    @Flag(
        name: .customLong("cache"),
        inversion: .prefixedNo,
        help:
            "Keep the last list the source gave in the state directory (cache.sqlite), so a restart or a failing source still has items (the default); --no-cache keeps nothing on disk."
    )
    public var cache: Bool?

    @Option(
        name: .customLong("refresh-interval"),
        help: ArgumentHelp(
            "Refetch the source this long after its last answer, 0.1 to 31536000 seconds (a load re-arms the timer); 0: never on a timer, and no retries after a failure; auto: for an HTTP source the lifetime its answers state (Cache-Control s-maxage or max-age, less Age, else Expires − Date; none with no-cache, no-store or neither), for a file, PostgreSQL or script source none. Default: auto.",
            discussion:
                "A refresh in the background publishes no loading state: a changed list is one new success state, an unchanged one (304, the same bytes, equal items) publishes nothing, a failure marks the items stale once.",
            valueName: "seconds|auto"))
    public var refreshInterval: String?

    @Option(
        name: .customLong("refresh-jitter"),
        help: ArgumentHelp(
            "Each refresh and retry delay is shortened by a random part of up to this fraction, 0 to 0.9, so daemons started together never refresh in lockstep. Default: 0.1.",
            valueName: "fraction"))
    public var refreshJitter: Double?

    @Option(
        name: .customLong("refresh-when"),
        help: ArgumentHelp(
            "always, or subscribed: refresh timers run only while at least one subscription exists, and the first subscriber to find the items older than the interval starts a refresh at once. Default: always.",
            valueName: "always|subscribed"))
    public var refreshWhen: String?

    @Option(
        name: .customLong("retry-max"),
        help: ArgumentHelp(
            "After a failed refresh, retry after about 1 s, doubling, jittered, never longer than this, 1 to 86400 seconds; a Retry-After (seconds or an HTTP date) on 429 or 503 is honoured up to an hour. Default: 300.",
            valueName: "seconds"))
    public var retryMax: Double?

    /// nil when neither flag is given, so `"watchFile"` from the config file applies.
    @Flag(
        name: .customLong("watch-file"),
        inversion: .prefixedNo,
        help:
            "Watch a file: source's directory with inotify and reload the file when it is written, replaced, deleted or created again (the default); --no-watch-file reads it only when loaded."
    )
    public var watchFile: Bool?

    @Option(
        help: ArgumentHelp(
            "Who may read (state, get, subscribe, …): principals separated by commas — user:NAME, user:UID, group:NAME, group:GID, or * for anyone who can open the socket (the default).",
            valueName: "principals"))
    public var readAccess: String?

    @Option(
        help: ArgumentHelp(
            "Who may also load, remove, put, patch and apply, as --read-access. Default: none besides depotd's own user and root, which always may do everything.",
            valueName: "principals"))
    public var writeAccess: String?

    @Option(help: ArgumentHelp("Who may also remove, without write access, as --read-access. Default: none.", valueName: "principals"))
    public var removeAccess: String?

    @Option(help: ArgumentHelp("Who may also put, without write access, as --read-access. Default: none.", valueName: "principals"))
    public var putAccess: String?

    @Option(help: ArgumentHelp("Who may also patch, without write access, as --read-access. Default: none.", valueName: "principals"))
    public var patchAccess: String?

    @Option(
        help: ArgumentHelp("Who may also apply batches of changes, without write access, as --read-access. Default: none.", valueName: "principals"))
    public var applyAccess: String?

    @Option(
        help: ArgumentHelp(
            "Who may also wipe and change stored pipelines, as --read-access. Default: none besides depotd's own user and root.",
            valueName: "principals"))
    public var adminAccess: String?

    public init() {}
}
