import DepotClient
import DepotJSON
import DepotTestSupport
import DepotWire
import Testing

/// What a sequence of writes must leave, worked out without the daemon: the items by id, and for each write whether
/// it is made or which error refuses it. The model test checks the daemon, its subscribers and the source against it.
struct WriteModel {
    /// One change as the test sends it.
    struct Change: CustomStringConvertible {
        enum Operation {
            case put(JSONObject)
            case patch(JSONValue)
            case remove
        }

        enum Precondition {
            case none
            case ifMatch(String)
            /// An etag the item had once, or never had.
            case stale(String)
            case ifAbsent
        }

        var id: String
        var idValue: JSONValue
        var operation: Operation
        var precondition: Precondition

        var wire: WireChange {
            let ifMatch: String? =
                switch precondition {
                case .ifMatch(let etag), .stale(let etag): etag
                default: nil
                }
            let ifAbsent = if case .ifAbsent = precondition { true } else { false }
            return switch operation {
            case .put(let item): WireChange(.put, id: idValue, item: item, ifMatch: ifMatch, ifAbsent: ifAbsent)
            case .patch(let patch): WireChange(.patch, id: idValue, patch: .merge(patch), ifMatch: ifMatch)
            case .remove: WireChange(.remove, id: idValue, ifMatch: ifMatch)
            }
        }

        var description: String {
            let what =
                switch operation {
                case .put(let item): "put \(JSONValue.object(item).jsonText)"
                case .patch(let patch): "patch \(patch.jsonText)"
                case .remove: "remove"
                }
            return "\(what) \(id) \(precondition)"
        }
    }

    /// The items the source holds, by id.
    var items: [String: JSONValue]

    /// What a call must end with.
    enum Outcome {
        /// It is made, leaving these items.
        case made([String: JSONValue])
        /// It fails with this error code, and changes nothing.
        case refused(Int)
    }

    /// What `changes`, made together, do to the items: the error code that refuses them (nothing changes), or the items
    /// after. `alone` is whether the call has one change (a lone removal of an id not held is asked of the source, which
    /// answers notFound too). `refused` says whether the source refuses a change, given the item it leaves (nil for a
    /// removal).
    func outcome(of changes: [Change], refusedBySource refused: (Change, JSONValue?) -> Bool) -> Outcome {
        var after = items
        for change in changes {
            let current = after[change.id]
            switch change.precondition {
            case .none: break
            case .ifMatch: if current == nil { return .refused(DepotErrorCode.conflict) }
            case .stale: return .refused(DepotErrorCode.conflict)
            case .ifAbsent: if current != nil { return .refused(DepotErrorCode.conflict) }
            }
            switch change.operation {
            case .put(let item):
                after[change.id] = .object(item)
            case .patch(let patch):
                guard let current else { return .refused(DepotErrorCode.notFound) }
                after[change.id] = JSONMergePatch.apply(patch, to: current)
            case .remove:
                guard current != nil else { return .refused(DepotErrorCode.notFound) }
                after[change.id] = nil
            }
        }
        if changes.contains(where: { refused($0, after[$0.id]) }) { return .refused(DepotErrorCode.changeFailed) }
        return .made(after)
    }
}

/// The items of a list by their id member's text (an integer id as its decimal text).
func itemsByID(_ items: [JSONValue], idField: String = "id") -> [String: JSONValue] {
    var byID: [String: JSONValue] = [:]
    for item in items {
        switch item[idField] {
        case .string(let id)?: byID[id] = item
        case .number(let number)?: byID[number.literal] = item
        default: break
        }
    }
    return byID
}

/// The error code a call ended with; nil when it succeeded.
func errorCode(_ call: () async throws -> Void) async throws -> Int? {
    do {
        try await call()
        return nil
    } catch DepotClientError.remote(let error) {
        return error.code
    }
}

/// Where two sets of items differ, briefly: each id held differently, with what each side holds ("-" for nothing).
func difference(_ held: [String: JSONValue], _ expected: [String: JSONValue]) -> String {
    Set(held.keys).union(expected.keys).sorted().compactMap { id in
        held[id] == expected[id] ? nil : "\(id): \(held[id]?.jsonText ?? "-") but expected \(expected[id]?.jsonText ?? "-")"
    }.joined(separator: "; ")
}

/// Records an issue naming the difference when `held` is not `expected`.
func expectItems(
    _ held: [String: JSONValue], _ expected: [String: JSONValue], _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) {
    if held != expected { Issue.record("\(what()): \(difference(held, expected))", sourceLocation: sourceLocation) }
}
