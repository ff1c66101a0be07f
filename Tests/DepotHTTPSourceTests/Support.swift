import DepotCore
import DepotHTTPSource
import DepotSources
import DepotTestSupport
import Logging
import Testing

/// Runs `body` with a fresh test server answering with `reply`, and always stops the server.
func withServer<Value: Sendable>(
    _ reply: @escaping @Sendable (HTTPTestServer.Request) -> HTTPTestServer.Reply,
    _ body: @escaping @Sendable (HTTPTestServer) async throws -> Value
) async throws -> Value {
    let server = try await HTTPTestServer.start(reply)
    do {
        let value = try await withTimeout(.seconds(60), "the exchange with the test server") { try await body(server) }
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

/// An HTTP source on `path` of `server`; short timeouts so that a test of one never waits long (stretched on a
/// slow build, like every safety net: `TestTime.scale`).
func httpSource(
    _ server: HTTPTestServer,
    _ path: String = "/items",
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    configure: (inout HTTPSourceOptions) throws -> Void = { _ in }
) throws -> HTTPSource {
    try httpSource(url: server.url(path), logger: logger, configure: configure)
}

/// A source of the resource at `url`, with the tests' timeouts.
func httpSource(
    url: String,
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    configure: (inout HTTPSourceOptions) throws -> Void = { _ in }
) throws -> HTTPSource {
    var options = HTTPSourceOptions()
    options.connectTimeout = .seconds(5) * TestTime.scale
    options.requestTimeout = .seconds(20) * TestTime.scale
    try configure(&options)
    return HTTPSource(address: try HTTPAddress(parsing: url), options: options, logger: logger)
}

let threeItems = #"[{"id":1,"name":"one"},{"id":2,"name":"two"},{"id":"c","name":"three"}]"#

/// A repository that logs nothing.
func makeRepository(_ source: any Source) -> Repository {
    Repository(source: source, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })).running()
}
