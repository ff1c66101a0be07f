import DepotCore
import DepotJSON
import DepotOperators
import DepotPipeline
import DepotWire
import Foundation

/// `text` parsed; the tests' literals are valid JSON.
func json(_ text: String) -> JSONValue {
    do {
        return try JSONParser.parse(Array(text.utf8))
    } catch {
        fatalError("test JSON does not parse: \(error)\n\(text)")
    }
}

/// A pipeline from its JSON text.
func pipeline(_ text: String) throws -> Pipeline {
    try Pipeline(decoding: json(text))
}

/// A success state with these items (JSON objects with an `id`), at `seq`.
func success(_ seq: Int, _ items: [String], stale: Bool = false) -> PublishedState {
    PublishedState(
        seq: seq, state: .success(collection(items), Provenance(origin: .source, fetchedAt: Date(timeIntervalSince1970: 1_000), stale: stale)))
}

func collection(_ items: [String]) -> ItemCollection {
    do {
        return try ItemCollection(values: items.map(json), idField: "id")
    } catch {
        fatalError("test items are not a collection: \(error)")
    }
}

/// The items of a success state as their JSON text; nil for any other state.
func texts(_ state: PublishedState?) -> [String]? {
    state?.state.items?.items.map { String(decoding: $0.json, as: UTF8.self) }
}

/// The ids of a success state's items.
func ids(_ state: PublishedState?) -> [String]? {
    state?.state.items?.items.map(\.id)
}
