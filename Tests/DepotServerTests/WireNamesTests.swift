import DepotCore
import DepotOperators
import DepotPipeline
import DepotWire
import Testing

@testable import DepotServer

/// The wire's own enums (which clients use without the daemon's code) name every case of the domain's, the same.
@Suite("Wire names: the protocol's statuses, origins and strategies map the domain's one to one, by name")
struct WireNamesTests {
    @Test("every status, origin and strategy keeps its name across the mapping, and none is left over")
    func oneToOne() {
        #expect(LoadingState.Status.allCases.map { StateStatus($0).rawValue } == LoadingState.Status.allCases.map(\.rawValue))
        #expect(StateStatus.allCases.count == LoadingState.Status.allCases.count)
        #expect(Provenance.Origin.allCases.map { ItemOrigin($0).rawValue } == Provenance.Origin.allCases.map(\.rawValue))
        #expect(ItemOrigin.allCases.count == Provenance.Origin.allCases.count)
        #expect(LoadStrategy.allCases.map { RetrievalStrategy($0).rawValue } == LoadStrategy.allCases.map(\.rawValue))
        #expect(LoadStrategy.allCases.count == RetrievalStrategy.allCases.count)
    }
}
