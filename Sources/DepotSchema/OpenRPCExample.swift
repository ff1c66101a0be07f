package import DepotJSON

/// One of a method's examples (an OpenRPC Example Pairing): the params of a call and the result it gets.
package struct OpenRPCExample: Sendable {
    package let name: String
    /// The example's params by name, in the order listed; a param given by `externalValue` is left out.
    package let params: JSONObject
    /// The result's `value`; nil when the example has none (a notification) or gives it by `externalValue`.
    package let result: JSONValue?

    init(_ value: JSONValue, at location: String, reader: OpenRPCReader) throws(OpenRPCDocumentError) {
        let (object, place) = try reader.object(value, at: location, what: "an example pairing")
        self.name = try reader.string(object, "name", at: place)
        var params = JSONObject()
        for (index, element) in try reader.array(object, "params", at: place).enumerated() {
            let elementLocation = SchemaCompiler.child(SchemaCompiler.child(place, "params"), String(index))
            let (param, paramPlace) = try reader.object(element, at: elementLocation, what: "an example object")
            let name = try reader.string(param, "name", at: paramPlace)
            if let value = param.member(named: "value") {
                params.append(key: name, value: value)
            }
        }
        self.params = params
        if let resultValue = object.member(named: "result") {
            let (result, _) = try reader.object(resultValue, at: SchemaCompiler.child(place, "result"), what: "an example object")
            self.result = result.member(named: "value")
        } else {
            self.result = nil
        }
    }
}
