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

    @Test("a param is named as sent, escapes and all")
    func names() {
        #expect(Self.message("get", ["a/b~c": 1])?.contains(#"param "a/b~c": is not a param of get (it takes id, pipeline, meta)"#) == true)
        #expect(Self.message("remove", ["id": "1", "optimistic": "yes"])?.contains(#"param "optimistic": must be a boolean"#) == true)
        #expect(Self.message("remove", [:])?.contains(#"missing required param "id""#) == true)
        #expect(Self.message("get", ["id": 1]) == nil)
    }

    @Test("a method the document lacks is refused, naming the methods it lists")
    func unknownMethod() throws {
        let message = try #require(Self.message("nosuchmethod", ["x": 1]))
        #expect(message.hasPrefix("nosuchmethod is not a method of the protocol's document (depotctl schema); the methods are apply, get, "))
        #expect(!message.contains("stateChanged"), "a notification is no method to call")
    }
}
