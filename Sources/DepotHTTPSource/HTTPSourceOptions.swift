/// Everything about an HTTP source but its URL: where the items are in the response, where writes go,
/// the headers, and the limits. The defaults suit a JSON API on the network; all can be set in the config file.
package struct HTTPSourceOptions: Sendable, Equatable {
    /// Where the array is in the response; `whole` when the response is the array.
    package var itemsPath: ItemsPath = .whole
    /// Where DELETE goes; nil when the source does not allow removals.
    package var deleteURL: ItemURLTemplate?
    /// Where PUT of an item goes; nil when the source does not allow puts (nor patches without `patchURL`).
    package var putURL: ItemURLTemplate?
    /// Where PATCH of a patch goes (`application/merge-patch+json` or `application/json-patch+json`); without it, a
    /// patch is sent as a PUT of the patched item to `putURL`.
    package var patchURL: ItemURLTemplate?
    /// Headers with their values, sent with every request.
    package var headers: [HeaderField] = []
    /// Headers whose values are read from files for every request.
    package var secretHeaders: [SecretHeader] = []
    /// How long connecting (TCP and TLS) may take.
    package var connectTimeout: Duration = Self.defaultConnectTimeout
    /// How long a whole request may take, from connecting to the last byte of the body, redirects included.
    package var requestTimeout: Duration = Self.defaultRequestTimeout
    /// The largest body read; a larger one fails the load, and reading stops at the limit.
    package var maxResponseBytes: Int = Self.defaultMaxResponseBytes
    /// How many redirects are followed; a redirect loop is refused at once.
    package var maxRedirects: Int = Self.defaultMaxRedirects

    package static let defaultConnectTimeout = Duration.seconds(10)
    package static let defaultRequestTimeout = Duration.seconds(30)
    package static let defaultMaxResponseBytes = 64 * 1024 * 1024
    package static let defaultMaxRedirects = 5

    package init() {}
}
