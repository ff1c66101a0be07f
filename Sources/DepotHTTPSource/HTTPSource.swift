import AsyncHTTPClient
package import DepotCore
package import DepotJSON
import DepotPlatform
package import DepotSources
package import Logging
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// A collection served by an HTTP API (`--source https://…`): GET returns the items as a JSON array, or an
/// object with the array at `itemsPath`; a write sends PUT to `putURL`, PATCH to `patchURL` or DELETE to `deleteURL`,
/// each with the id filled in.
///
/// Loads are conditional: the ETag and Last-Modified of the last 200 come back as If-None-Match and
/// If-Modified-Since, and a 304 leaves the items as they are; so does a 200 whose body has the digest of the one
/// the items were read from (`ContentDigest`), for servers that send no validators. Each answer states its lifetime
/// from its caching headers (`ResponseFreshness`), and a 429 or 503 says when to ask again. Every failure — a status that is not 2xx, a
/// body that is not the expected JSON, a timeout, a body over the size limit, too many redirects — is a
/// `SourceError` whose message names the request (the URL without query values), what happened, and what to do.
///
/// Each call uses a client of its own, shut down when the call ends: loads are rare, so a kept-alive connection
/// would gain little, and no client outlives a source that a reload replaced. AsyncHTTPClient is given no
/// logger, so nothing it does can log a header; this source logs requests at debug level without their headers.
package struct HTTPSource: WritableSource {
    package let address: HTTPAddress
    package let options: HTTPSourceOptions
    private let logger: Logger
    /// The time a response is received at, against which its dates are read; tests give their own.
    private let now: @Sendable () -> Date

    package init(
        address: HTTPAddress, options: HTTPSourceOptions = HTTPSourceOptions(), logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.address = address
        self.options = options
        self.logger = logger
        self.now = now
    }

    package var description: String { address.description }

    /// An API has other users: a write the list held refuses is refused only once the list was read again.
    package var othersWrite: Bool { true }

    package func fetchItems() async throws -> [JSONValue] {
        switch try await fetchItems(ifChangedSince: nil) {
        case .items(let items, _): items
        case .collection(let collection, _, _): try collection.items.map { item in try item.value }
        case .unchanged: throw SourceError(.invalidData, "\(address) answered 304 Not Modified to an unconditional GET; check the server")
        case .changes: preconditionFailure("an HTTP source never answers with changes")
        }
    }

    package func fetchItems(ifChangedSince version: SourceVersion?) async throws -> SourceListing {
        try await fetch(ifChangedSince: version).listing
    }

    package func fetch(ifChangedSince version: SourceVersion?) async throws -> SourceAnswer {
        let what = "GET \(address)"
        var conditions: [(String, String)] = []
        if let etag = version?.etag { conditions.append(("If-None-Match", etag)) }
        if let lastModified = version?.lastModified { conditions.append(("If-Modified-Since", lastModified)) }
        let response = try await perform(.GET, address, extraHeaders: conditions, what: what) { status in
            (200..<300).contains(status.code)
        }
        let receivedAt = now()
        switch response.status.code {
        case 304 where !conditions.isEmpty:
            let lifetime = ResponseFreshness.lifetime(of: response.headers, receivedAt: receivedAt, isRevalidation: true)
            logger.debug("\(what): 304 Not Modified\(lifetime.map { ", \($0)" } ?? "")")
            return SourceAnswer(.unchanged, lifetime: lifetime)
        case 200..<300:
            let lifetime = ResponseFreshness.lifetime(of: response.headers, receivedAt: receivedAt)
            let digest = ContentDigest.of(response.body)
            if let version, version.digest == digest {
                logger.debug(
                    "\(what): \(Self.text(response.status)), the same \(response.body.count) bytes as before, \(lifetime?.description ?? "")")
                return SourceAnswer(.unchanged, lifetime: lifetime)
            }
            let newVersion = SourceVersion(
                etag: response.headers.first(name: "ETag"), lastModified: response.headers.first(name: "Last-Modified"), digest: digest)
            logger.debug(
                "\(what): \(Self.text(response.status)), \(response.body.count) bytes\(newVersion.map { ", \($0)" } ?? ""), \(lifetime?.description ?? "")"
            )
            return SourceAnswer(.items(try parse(response.body, what: what), version: newVersion), lifetime: lifetime)
        default:
            let retryAfter = ResponseFreshness.retryAfter(status: response.status, headers: response.headers, receivedAt: receivedAt)
            let asked = retryAfter.map { " (it asks to be asked again in \($0.components.seconds) s: Retry-After)" } ?? ""
            throw SourceError(
                .unavailable, "\(what) answered \(Self.text(response.status))\(asked); \(Self.advice(for: response.status))", retryAfter: retryAfter)
        }
    }

    /// Sends the change — PUT of the item to `putURL`, PATCH of the patch to `patchURL` (or, without one, PUT of the
    /// patched item), DELETE to `deleteURL` — and answers `.relist`: the repository then asks for the list again, since
    /// other clients of the API may have changed it too. 2xx succeeds (201: created), 404 and 410 are notFound, 409 and
    /// 412 conflicts. An API applies one change per request, with no transaction across them: a batch of more than one
    /// change is refused. A put that only creates sends `If-None-Match: *` (RFC 9110), which a server may refuse with
    /// 412. A change that must find an item (`ifMatch`; a patch's base, unless the API applies the patch itself) GETs
    /// the item first: another version there is a conflict at once, the same one's ETag goes with the change as
    /// `If-Match`, so that the API refuses it (412) if the item changes in between — no update is lost to another user
    /// of the API. An API that sends no strong ETag for an item gets the change checked against the item just read.
    package func write(_ changes: [SourceChange], held: HeldItems?) async throws -> SourceWriteResult {
        guard changes.count == 1, let change = changes.first else {
            throw SourceError(
                .unsupported,
                "\(address) cannot apply \(changes.count) changes at once: an HTTP API takes one change per request and none can be undone if a later one fails; send them one at a time"
            )
        }
        let method: HTTPMethod
        let target: HTTPAddress
        var headers: [(String, String)] = []
        var body: [UInt8]?
        switch change.write {
        case .remove(let id):
            guard let template = options.deleteURL else { throw Self.noURL(address, "removals", "--delete-url", "deleteURL", "DELETE") }
            (method, target) = (.DELETE, template.address(for: id))
        case .put(let item):
            if let patch = change.patch, let template = options.patchURL {
                (method, target) = (.PATCH, template.address(for: item.id))
                body = patch.json.jsonBytes
                headers.append(("Content-Type", patch.mediaType))
            } else {
                guard let template = options.putURL else {
                    throw Self.noURL(address, change.patch == nil ? "puts" : "patches", "--put-url (or --patch-url for patches)", "putURL", "PUT")
                }
                (method, target) = (.PUT, template.address(for: item.id))
                body = item.json
                headers.append(("Content-Type", "application/json"))
                if change.expected == .absent { headers.append(("If-None-Match", "*")) }
            }
        }
        if case .item(let expected) = change.expected, !(method == .PATCH && change.expectsOnlyBase),
            let validator = try await validator(of: expected, at: target)
        {
            headers.append(("If-Match", validator))
        }
        let what = "\(method) \(target)"
        let response = try await perform(method, target, extraHeaders: headers, body: body, what: what, writing: true) { _ in false }
        logger.debug("\(what): \(Self.text(response.status))")
        switch response.status.code {
        case 200..<300:
            return SourceWriteResult(.relist, created: [response.status.code == 201])
        case 404, 410:
            throw SourceError(.notFound, "\(what) answered \(Self.text(response.status)): the server has no item with id \"\(change.id)\"")
        case 409, 412:
            throw SourceError(
                .conflict,
                "\(what) answered \(Self.text(response.status)): the server holds another version of item \"\(change.id)\"; read it again and redo the change",
                conflict: SourceError.Conflict(index: 0, current: nil))
        default:
            throw SourceError(
                .refused, "\(what) answered \(Self.text(response.status)), so the change was not made; \(Self.advice(for: response.status))")
        }
    }

    /// The strong ETag of `expected` at the API, read by a GET of its URL, for a change that must find it there; nil
    /// when the API sends none (a weak ETag cannot be matched: RFC 9110 §13.1.1). Another version there, or none, is a
    /// conflict now, naming what the API holds.
    private func validator(of expected: Item, at target: HTTPAddress) async throws -> String? {
        let what = "GET \(target)"
        let response = try await perform(.GET, target, extraHeaders: [], what: what) { (200..<300).contains($0.code) }
        switch response.status.code {
        case 200..<300:
            let current: JSONValue
            do {
                current = try JSONParser.parse(response.body)
            } catch {
                throw SourceError(
                    .invalidData, "\(what) answered with a body that is not valid JSON: \(error); check that the URL serves one item")
            }
            guard current.jsonEquals(try expected.value) else {
                throw SourceError(
                    .conflict, "\(what): the server holds another version of item \"\(expected.id)\"; read it again and redo the change",
                    conflict: SourceError.Conflict(index: 0, current: Item(id: expected.id, json: current.jsonBytes)))
            }
            guard let etag = response.headers.first(name: "ETag"), !etag.hasPrefix("W/") else {
                logger.debug("\(what): no strong ETag; the change is sent unconditionally, checked against the item just read")
                return nil
            }
            return etag
        case 404, 410:
            throw SourceError(
                .conflict, "\(what) answered \(Self.text(response.status)): the server has no item \"\(expected.id)\" now; read it again",
                conflict: SourceError.Conflict(index: 0, current: nil))
        default:
            throw SourceError(
                .refused, "\(what) answered \(Self.text(response.status)), so the change was not sent; \(Self.advice(for: response.status))")
        }
    }

    /// The error for a change no URL is set for: which setting to set, and how.
    private static func noURL(_ address: HTTPAddress, _ changes: String, _ flag: String, _ key: String, _ method: String) -> SourceError {
        SourceError(
            .unsupported,
            "\(address) allows no \(changes): no URL is set for them; set \(flag) (\"\(key)\" in the config file) to the URL that takes a \(method) of one item, with {id} where the id goes, as in \(address.scheme)://HOST/items/{id}"
        )
    }

    // MARK: Requests

    /// A response's status, headers and (when `wantsBody` says so for its status) body.
    private struct Response: Sendable {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    /// Sends one request with the configured headers and limits, and reads the body within the size limit,
    /// all within the request timeout. Every error comes out as a `SourceError` about `what`.
    private func perform(
        _ method: HTTPMethod,
        _ target: HTTPAddress,
        extraHeaders: [(String, String)],
        body: [UInt8]? = nil,
        what: String,
        writing: Bool = false,
        wantsBody: @escaping @Sendable (HTTPResponseStatus) -> Bool
    ) async throws(SourceError) -> Response {
        var request = HTTPClientRequest(url: target.url)
        request.method = method
        request.headers = try headers(adding: extraHeaders)
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let options = options
        do {
            return try await withDeadline(options.requestTimeout) { [request] in
                try await HTTPClient.withHTTPClient(configuration: Self.clientConfiguration(options)) { client in
                    let response = try await client.execute(request, timeout: TimeAmount(options.requestTimeout))
                    guard wantsBody(response.status) else { return Response(status: response.status, headers: response.headers, body: []) }
                    let body = try await Self.readBody(response, limit: options.maxResponseBytes, what: what)
                    return Response(status: response.status, headers: response.headers, body: body)
                }
            }
        } catch {
            let failed = failure(error, what: what)
            // A write whose request may have reached the server, with no answer back (a time-out, the connection lost
            // while it was under way), may have been made: only the server knows. Refusing it would say it was not.
            guard writing, !ConnectionFailure.neverReachedServer(error) else { throw failed }
            throw SourceError(
                .outcomeUnknown, "\(failed.message) — after the request may have reached the server, which may or may not have made it")
        }
    }

    /// The configured headers, the secrets read from their files now, `Accept` unless configured, and `extra`.
    private func headers(adding extra: [(String, String)]) throws(SourceError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for header in options.headers {
            headers.add(name: header.name, value: header.value)
        }
        for secret in options.secretHeaders {
            headers.add(name: secret.name, value: try secret.value())
        }
        if !headers.contains(name: "Accept") {
            headers.add(name: "Accept", value: "application/json")
        }
        if !headers.contains(name: "User-Agent") {
            headers.add(name: "User-Agent", value: "depotd")
        }
        for (name, value) in extra {
            headers.replaceOrAdd(name: name, value: value)
        }
        return headers
    }

    private static func clientConfiguration(_ options: HTTPSourceOptions) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: options.maxRedirects == 0 ? .disallow : .follow(max: options.maxRedirects, allowCycles: false),
            timeout: .init(connect: TimeAmount(options.connectTimeout))
        )
        configuration.decompression = .disabled
        // A connection that cannot be made (refused, unreachable) fails the request at once. AsyncHTTPClient would
        // otherwise retry with backoff until a deadline, and under load that ran to the whole request timeout;
        // each call has a client of its own, so there is no pool of others to fall back on, and the next load
        // tries again anyway.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// The body, read as it streams in; past `limit` bytes (or when Content-Length says it will be) reading stops
    /// and the request is abandoned.
    private static func readBody(_ response: HTTPClientResponse, limit: Int, what: String) async throws -> [UInt8] {
        let tooLarge = SourceError(
            .invalidData,
            "\(what) sent more than \(limit) bytes, the limit (maxResponseBytes), so reading stopped; if the collection "
                + "really is that large, raise --max-response-bytes"
        )
        let announced = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let announced, announced > limit { throw tooLarge }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(announced ?? 0, limit))
        for try await chunk in response.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw tooLarge }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    private func parse(_ body: [UInt8], what: String) throws(SourceError) -> [JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw SourceError(
                .invalidData,
                "\(what) answered with a body that is not valid JSON: \(error) (\(error.position(in: body))); check that the URL serves a JSON array of items"
            )
        }
        return try options.itemsPath.items(in: value, from: what)
    }

    // MARK: Messages

    /// `500 Internal Server Error`.
    static func text(_ status: HTTPResponseStatus) -> String {
        "\(status.code) \(status.reasonPhrase)"
    }

    /// What a user can do about a status that is not success.
    static func advice(for status: HTTPResponseStatus) -> String {
        switch status.code {
        case 300..<400: "follow the redirect yourself by setting the new URL, or allow redirects with --max-redirects (\"maxRedirects\")"
        case 401, 403: "check the credentials sent in \"headerFiles\" or \"headerCredentials\" in the config file"
        case 404, 410: "check the URL"
        case 408, 429: "the server is busy; try again later"
        case 501, 505: "the server does not support this request: check the URL, and --delete-url for removals"
        case 502, 503, 504: "the server or a proxy in front of it is unavailable; try again later"
        case 500..<600: "the server failed; look at the server's logs, or try again later"
        default: "check the URL and the headers in the config file"
        }
    }

    /// The `SourceError` for an error thrown while requesting `what`.
    private func failure(_ error: any Error, what: String) -> SourceError {
        switch error {
        case let error as SourceError:
            return error
        case is DeadlineExceeded:
            return SourceError(
                .unavailable,
                "\(what) timed out: no complete answer within \(options.requestTimeout) (requestTimeout); check that the server is up, or raise --request-timeout"
            )
        case let error as HTTPClientError where error == .deadlineExceeded:
            return SourceError(
                .unavailable,
                "\(what) timed out: no complete answer within \(options.requestTimeout) (requestTimeout); check that the server is up, or raise --request-timeout"
            )
        case let error as HTTPClientError where error == .connectTimeout:
            return SourceError(
                .unavailable,
                "\(what) could not connect within \(options.connectTimeout) (connectTimeout); check the host and port, and that the server is up")
        case let error as HTTPClientError where error == .redirectLimitReached:
            return SourceError(
                .unavailable,
                "\(what) was redirected more than \(options.maxRedirects) times (maxRedirects); set --source to the final URL, or raise --max-redirects"
            )
        case let error as HTTPClientError where error == .redirectCycleDetected:
            return SourceError(.unavailable, "\(what) is redirected in a loop; check the URL and the server's redirects")
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return SourceError(.unavailable, "\(what) failed: the server closed the connection before it answered; check the server")
        case let error as HTTPClientError:
            return SourceError(.unavailable, "\(what) failed: \(error.shortDescription); check the URL and the server")
        default:
            if let explanation = ConnectionFailure.explanation(error) {
                return SourceError(.unavailable, "\(what) failed: \(explanation)")
            }
            return SourceError(.unavailable, "\(what) failed: \(error); check the URL, and that the server is up")
        }
    }
}
