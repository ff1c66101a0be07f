import DepotCore
import DepotJSON
import DepotWire

extension ItemChange {
    /// The change a client sent, in the domain's terms (an item put without its id member gets it from the repository,
    /// as the client gave it: `idValue`).
    init(_ change: WireChange) {
        let precondition: Precondition = change.ifAbsent ? .ifAbsent : change.ifMatch.map { .ifMatch($0) } ?? .none
        let operation: Operation
        switch change.operation {
        case .put:
            operation = .put(change.item ?? JSONObject())
        case .patch:
            switch change.patch {
            case .jsonPatch(let patch)?: operation = .patch(.jsonPatch(patch))
            case .merge(let value)?: operation = .patch(.merge(value))
            case nil: operation = .patch(.merge(.object(JSONObject())))
            }
        case .remove:
            operation = .remove
        }
        self.init(id: change.id, operation: operation, precondition: precondition, idValue: change.idValue)
    }
}
