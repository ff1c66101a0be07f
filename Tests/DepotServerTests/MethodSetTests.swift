import DepotSchema
import DepotServer
import DepotTestSupport
import Testing

@Suite("Server: the methods it registers are the document's")
struct MethodSetTests {
    @Test("the dispatcher registers exactly the methods rpc-schema/openrpc.json lists for clients to call")
    func sameMethods() async throws {
        try await withServer { server in
            #expect(server.server.methodNames.sorted() == ProtocolLedger.document.calledMethodNames.sorted())
        }
    }
}
