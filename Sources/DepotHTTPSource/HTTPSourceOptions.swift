/// Everything about an HTTP source but its URL: where the items are in the response, where writes go,
/// the headers, and the limits. The defaults suit a JSON API on the network; all can be set in the config file.
public struct HTTPSourceOptions: Sendable, Equatable {
    /// Where the array is in the response; `whole` when the response is the array.
    public var itemsPath: ItemsPath = .whole
    /// Where DELETE goes; nil when the source does not allow removals.
    public var deleteURL: ItemURLTemplate?
    /// Where PUT of an item goes; nil when the source does not allow puts (nor patches without `patchURL`).
    public var putURL: ItemURLTemplate?
    /// Where PATCH of a patch goes (`application/merge-patch+json` or `application/json-patch+json`); without it, a
    /// patch is sent as a PUT of the patched item to `putURL`.
    public var patchURL: ItemURLTemplate?
    /// Headers with their values, sent with every request.
    public var headers: [HeaderField] = []
    /// Headers whose values are read from files for every request.
    public var secretHeaders: [SecretHeader] = []
    /// How long connecting (TCP and TLS) may take.
    public var connectTimeout: Duration = Self.defaultConnectTimeout
    /// How long a whole request may take, from connecting to the last byte of the body, redirects included.
    public var requestTimeout: Duration = Self.defaultRequestTimeout
    /// The largest body read; a larger one fails the load, and reading stops at the limit.
    public var maxResponseBytes: Int = Self.defaultMaxResponseBytes
    /// How many redirects are followed; a redirect loop is refused at once.
    public var maxRedirects: Int = Self.defaultMaxRedirects

    public static let defaultConnectTimeout = Duration.seconds(10)
    public static let defaultRequestTimeout = Duration.seconds(30)
    public static let defaultMaxResponseBytes = 64 * 1024 * 1024
    public static let defaultMaxRedirects = 5

    public init() {}
}
