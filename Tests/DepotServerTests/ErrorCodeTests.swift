import DepotCore
import DepotJSON
import DepotRPC
import DepotSchema
import DepotTestSupport
import DepotWire
import NIOCore
import Testing

@testable import DepotServer

@Suite("Error codes: the domain's kinds become the document's codes here, and only here")
struct ErrorCodeTests {
    @Test func depotErrorCodesAreInTheServerErrorRange() {
        #expect(DepotErrorCode.all == [-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009, -32010])
        #expect(DepotErrorCode.all.allSatisfy { (-32099)...(-32000) ~= $0 })
    }

    @Test(
        "each kind of domain error has the code the document gives its name",
        // Every kind a caller can be answered with: a cancelled mutation's caller has gone.
        arguments: StateError.Kind.allCases.filter { $0 != .cancelled })
    func kindsMapToTheDocumentsCodes(kind: StateError.Kind) throws {
        let documented =
            ProtocolLedger.document.json["components"]?["errors"]?.objectValue?.members
            .filter { $0.value["message"]?.stringValue?.hasPrefix("\(kind.name):") == true }
            .compactMap { $0.value["code"]?.numberValue?.intValue } ?? []
        #expect(!documented.isEmpty, "components/errors describes \(kind.name)")
        #expect(documented.allSatisfy { $0 == DepotErrorCode.code(for: kind) })
    }

    @Test("every code of Depot's own is in the document's components/errors")
    func everyCodeIsDocumented() {
        let documented = Set(
            ProtocolLedger.document.json["components"]?["errors"]?.objectValue?.members
                .compactMap { $0.value["code"]?.numberValue?.intValue } ?? [])
        #expect(Set(DepotErrorCode.all).isSubset(of: documented))
    }

    @Test("a failed mutation's error carries its kind's code, its message and the state it left as data")
    func mutationFailed() {
        let state = PublishedState(seq: 9, state: .idle)
        let error = RPCError.mutationFailed(
            RepositoryError(.changeFailed, message: "refused", state: state),
            encodedState: StateEncoder.encode(state, epoch: "e1")
        )
        #expect(error.code == -32002)
        #expect(error.message == "refused")
        guard case .encoded(let data)? = error.data else {
            Issue.record("the data is the encoded state")
            return
        }
        #expect(String(buffer: data) == #"{"seq":9,"epoch":"e1","status":"idle"}"#)
    }
}
