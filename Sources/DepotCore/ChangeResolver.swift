import DepotJSON

/// Turns the changes a client asks for into what is written, against the items a write is checked against (those
/// depotd shows, pending writes included): each precondition checked, each patch applied, each resulting item checked
/// (an object, its id, its size, the item schema), in order — a later change of a batch sees what the earlier ones
/// did. Pure: no source, no time, no lock; the first change that fails fails them all.
struct ChangeResolver {
    let idField: String
    let validator: (any ItemValidator)?
    /// The most bytes an item may have, as compact JSON.
    let maxItemBytes: Int

    /// What a batch of changes comes to.
    struct Resolution: Sendable {
        /// What the source is asked for, one per change, in order.
        let changes: [SourceChange]
        /// Each change's new etag; nil for a removal.
        let etags: [String?]
        /// Whether each change creates its item, as far as the items it was checked against tell.
        let created: [Bool]

        var writes: [ItemWrite] { changes.map(\.write) }
    }

    /// Why a change cannot be made.
    struct Rejection: Error, Sendable, Equatable {
        let kind: StateError.Kind
        let message: String
        let change: FailedChange
    }

    /// Resolves `changes` against `items`. A removal of an id the items lack is asked of the source anyway when it is
    /// the only change and has no precondition (`remove` as it always was: the source may hold what depotd does not
    /// show); in a batch, or conditional, it is notFound.
    func resolve(_ changes: [ItemChange], against items: ItemCollection) -> Result<Resolution, Rejection> {
        var written: [String: Item?] = [:]
        var resolved: [SourceChange] = []
        var etags: [String?] = []
        var created: [Bool] = []
        for (index, change) in changes.enumerated() {
            let current: Item? = written[change.id] ?? items.item(id: change.id)
            do {
                try check(change.precondition, of: change, current: current, index: index)
                let sourceChange = try resolve(change, current: current, index: index, alone: changes.count == 1, items: items)
                resolved.append(sourceChange)
                etags.append(sourceChange.write.item?.etag)
                created.append(current == nil && sourceChange.write.item != nil)
                written[change.id] = .some(sourceChange.write.item)
            } catch {
                return .failure(error)
            }
        }
        return .success(Resolution(changes: resolved, etags: etags, created: created))
    }

    private func check(_ precondition: ItemChange.Precondition, of change: ItemChange, current: Item?, index: Int) throws(Rejection) {
        switch precondition {
        case .none:
            return
        case .ifMatch(let etag):
            guard let current else {
                throw Rejection(
                    kind: .conflict, message: "no item \"\(change.id)\" to \(change.operationName): it was removed, or never was",
                    change: FailedChange(index: index, id: change.id, current: .absent))
            }
            guard current.etag == etag else {
                throw Rejection(
                    kind: .conflict,
                    message: "item \"\(change.id)\" has changed since etag \(etag): it is at \(current.etag) now; read it again and redo the change",
                    change: FailedChange(index: index, id: change.id, current: .item(current)))
            }
        case .ifAbsent:
            if let current {
                throw Rejection(
                    kind: .conflict, message: "item \"\(change.id)\" already exists (etag \(current.etag)); put it without ifAbsent to replace it",
                    change: FailedChange(index: index, id: change.id, current: .item(current)))
            }
        }
    }

    private func resolve(_ change: ItemChange, current: Item?, index: Int, alone: Bool, items: ItemCollection) throws(Rejection) -> SourceChange {
        let expected: SourceChange.Expectation
        switch change.precondition {
        case .none: expected = .anything
        case .ifAbsent: expected = .absent
        case .ifMatch: expected = current.map { .item($0) } ?? .absent
        }
        switch change.operation {
        case .put(let object):
            if let member = object[idField], Self.idText(member) != change.id {
                throw invalid(
                    "the item's \"\(idField)\" is \(Self.describe(member)), not the id \"\(change.id)\" it is put as; leave it out or make them equal",
                    change, index)
            }
            // An item put without its id gets it, first, written as the client gave it, or as the items held write theirs.
            let complete =
                object[idField] != nil
                ? object : JSONObject([JSONObject.Member(key: idField, value: idValue(for: change, current: current, items: items))] + object.members)
            return SourceChange(.put(try checkedItem(.object(complete), change, index)), expected: expected)
        case .patch(let patch):
            guard let current else {
                throw Rejection(
                    kind: .notFound, message: "no item with id \"\(change.id)\" to patch",
                    change: FailedChange(index: index, id: change.id, current: .absent))
            }
            let base: JSONValue
            do {
                base = try current.value
            } catch {
                preconditionFailure("an item held is valid JSON: \(error)")
            }
            let patched: JSONValue
            do {
                patched = try patch.apply(to: base)
            } catch {
                // A patch that does not fit the item as it is (a test that fails, a path that is not there) conflicts with
                // it, as RFC 5789 says of a patch "given the state of the resource".
                throw Rejection(
                    kind: .conflict, message: "the patch does not apply to item \"\(change.id)\" (etag \(current.etag)): \(error)",
                    change: FailedChange(index: index, id: change.id, current: .item(current)))
            }
            guard case .object(let object) = patched else {
                throw invalid("the patch would make item \"\(change.id)\" \(patched.typeNameWithArticle); an item must stay an object", change, index)
            }
            guard let member = object[idField], let base = base[idField], member.jsonEquals(base), Self.idText(member) == change.id else {
                let now = object[idField].map(Self.describe) ?? "missing"
                throw invalid(
                    "the patch would change the id of item \"\(change.id)\" (\"\(idField)\" would be \(now)); an id cannot change", change, index)
            }
            // A patch is made to the item it was applied to: the source must still hold that one, or it is applied again.
            let patchExpected: SourceChange.Expectation = change.precondition == .none ? .item(current) : expected
            return SourceChange(
                .put(try checkedItem(patched, change, index)), expected: patchExpected, patch: patch, expectsOnlyBase: change.precondition == .none)
        case .remove:
            if current == nil, !(alone && change.precondition == .none) {
                throw Rejection(
                    kind: .notFound, message: "no item with id \"\(change.id)\" to remove",
                    change: FailedChange(index: index, id: change.id, current: .absent))
            }
            return SourceChange(.remove(id: change.id), expected: expected)
        }
    }

    /// The id member an item put without one gets: as the client gave it when it gave a number; otherwise, for an
    /// integer id, a number when the item it replaces — or, for a new item, the first item held — has a number there,
    /// so an item put by `depotctl put 152` into a list with ids 1…151 gets 152, not "152".
    private func idValue(for change: ItemChange, current: Item?, items: ItemCollection) -> JSONValue {
        if let given = change.idValue, case .number = given { return given }
        guard let number = JSONNumber(literal: change.id), number.isInteger, let example = current ?? items.items.first,
            case .number? = (try? example.value)?[idField]
        else { return .string(change.id) }
        return .number(number)
    }

    /// The item `value` makes, checked against the size limit and the item schema.
    private func checkedItem(_ value: JSONValue, _ change: ItemChange, _ index: Int) throws(Rejection) -> Item {
        let json = value.jsonBytes
        guard json.count <= maxItemBytes else {
            throw invalid(
                "item \"\(change.id)\" would be \(json.count) bytes, over the limit of \(maxItemBytes) (--max-item-bytes, \"maxItemBytes\")", change,
                index)
        }
        if let validator {
            let violations = validator.violations(of: value)
            if !violations.isEmpty {
                let listed = violations.prefix(3).map(\.description).joined(separator: "; ")
                let more = violations.count > 3 ? " and \(violations.count - 3) more" : ""
                throw Rejection(
                    kind: .invalidItem, message: "item \"\(change.id)\" does not fit the item schema: \(listed)\(more)",
                    change: FailedChange(index: index, id: change.id, violations: violations))
            }
        }
        return Item(id: change.id, json: json)
    }

    private func invalid(_ message: String, _ change: ItemChange, _ index: Int) -> Rejection {
        Rejection(kind: .invalidChange, message: message, change: FailedChange(index: index, id: change.id))
    }

    /// An id member as a collection reads it: a non-empty string, or an integer's literal; nil for anything else.
    static func idText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty: text
        case .number(let number) where number.isInteger: number.literal
        default: nil
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .number(let number): number.literal
        default: value.typeNameWithArticle
        }
    }
}
