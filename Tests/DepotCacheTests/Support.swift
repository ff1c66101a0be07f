import DepotCore
import DepotJSON
import DepotTestSupport
import Foundation
import Logging

@testable import DepotCache

let quietLogger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

/// Items from JSON text, each kept as the exact compact text given (the text must already be compact).
func collection(_ texts: [String], idField: String = "id") throws -> ItemCollection {
    let values = try texts.map { try JSONParser.parse(Array($0.utf8)) }
    return try ItemCollection(values: values, idField: idField)
}

/// A cached list for the source `test:items`, fetched at a whole millisecond.
func cached(
    _ items: ItemCollection,
    fetchedAt: Date = Date(timeIntervalSince1970: 1_750_000_000.123),
    version: SourceVersion? = SourceVersion(etag: #"W/"abc""#, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
) -> CachedCollection {
    CachedCollection(items: items, fetchedAt: fetchedAt, version: version, source: "test:items", idField: "id")
}

/// Runs `body` with a cache opened at `cache.sqlite` in a fresh temporary directory, removed afterwards.
func withCache(_ body: (ItemCache, _ path: String) async throws -> Void) async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.file("cache.sqlite")
    try await body(try await ItemCache.open(at: path, logger: quietLogger), path)
}
