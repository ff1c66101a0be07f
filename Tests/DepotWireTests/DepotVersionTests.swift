import DepotJSON
import DepotWire
import Testing

@Suite("DepotVersion")
struct DepotVersionTests {
    @Test("the protocol document's info.version is the software's version, which rpc.discover therefore serves")
    func documentVersion() throws {
        let document = try JSONParser.parse(ProtocolDocument.text)
        #expect(document["info"]?["version"] == .string(DepotVersion.current))
    }
}
