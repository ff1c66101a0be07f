import ArgumentParser
import DepotJSON
import Testing

@testable import DepotControl

@Suite("depotctl call: params checked against the protocol's document")
struct ParamsCheckTests {
    static func message(_ method: String, _ params: JSONObject) -> String? {
        do {
            try ParamsCheck.check(method, params)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a param is named as sent, escapes and all; a method the document lacks is not checked")
    func names() {
        #expect(Self.message("get", ["a/b~c": 1])?.contains(#"param "a/b~c": is not a param of get (it takes id, pipeline, meta)"#) == true)
        #expect(Self.message("remove", ["id": "1", "optimistic": "yes"])?.contains(#"param "optimistic": must be a boolean"#) == true)
        #expect(Self.message("remove", [:])?.contains(#"missing required param "id""#) == true)
        #expect(Self.message("get", ["id": 1]) == nil)
        #expect(Self.message("not-in-the-document", ["x": 1]) == nil)
    }
}
