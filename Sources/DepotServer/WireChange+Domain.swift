import DepotCore
import DepotJSON
import DepotWire

extension ItemChange {
    /// The change a client sent, in the domain's terms. An item put without its id member gets it, first, as the
    /// client gave the id (a string or an integer), read from the repository's `idField`.
    init(_ change: WireChange, idField: String) {
        let precondition: Precondition = change.ifAbsent ? .ifAbsent : change.ifMatch.map { .ifMatch($0) } ?? .none
        let operation: Operation
        switch change.operation {
        case .put:
            let item = change.item ?? JSONObject()
            operation = .put(item[idField] == nil ? JSONObject([JSONObject.Member(key: idField, value: change.idValue)] + item.members) : item)
        case .patch:
            switch change.patch {
            case .jsonPatch(let patch)?: operation = .patch(.jsonPatch(patch))
            case .merge(let value)?: operation = .patch(.merge(value))
            case nil: operation = .patch(.merge(.object(JSONObject())))
            }
        case .remove:
            operation = .remove
        }
        self.init(id: change.id, operation: operation, precondition: precondition)
    }
}
