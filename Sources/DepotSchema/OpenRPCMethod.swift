package import DepotJSON

/// One method of an OpenRPC document, or one notification the server sends (marked `"x-notification": true`),
/// with what it takes, answers and may fail with, and the checks that hold messages to it.
package struct OpenRPCMethod: Sendable {
    /// How a method takes its params (OpenRPC's `paramStructure`; `either` when absent).
    package enum ParamStructure: String, Sendable {
        case byName = "by-name"
        case byPosition = "by-position"
        case either
    }

    package let name: String
    package let summary: String?
    package let description: String?
    /// True for a notification the server sends (`"x-notification": true`); clients never call it.
    package let isNotification: Bool
    package let paramStructure: ParamStructure
    /// In the order the document lists them, which is also their order by position.
    package let params: [OpenRPCParam]
    /// What a successful answer's `result` must match; nil when the method has no result (a notification).
    package let resultSchema: JSONSchema?
    /// The errors the method lists, besides JSON-RPC's own (`OpenRPCError.jsonRPCCodes`).
    package let errors: [OpenRPCError]
    package let examples: [OpenRPCExample]

    init(_ value: JSONValue, at location: String, reader: OpenRPCReader) throws(OpenRPCDocumentError) {
        let (object, place) = try reader.object(value, at: location, what: "a method object")
        let child = { (key: String) in SchemaCompiler.child(place, key) }
        self.name = try reader.string(object, "name", at: place)
        self.summary = try reader.optionalString(object, "summary", at: place)
        self.description = try reader.optionalString(object, "description", at: place)
        self.isNotification = try reader.optionalBool(object, "x-notification", at: place) ?? false
        if let structure = try reader.optionalString(object, "paramStructure", at: place) {
            guard let parsed = ParamStructure(rawValue: structure) else {
                throw .malformed(child("paramStructure"), "must be \"by-name\", \"by-position\" or \"either\", found \(Wording.quote(structure))")
            }
            self.paramStructure = parsed
        } else {
            self.paramStructure = .either
        }

        var params: [OpenRPCParam] = []
        for (index, element) in try reader.array(object, "params", at: place).enumerated() {
            let param = try OpenRPCParam(element, at: SchemaCompiler.child(child("params"), String(index)), reader: reader)
            guard !params.contains(where: { $0.name == param.name }) else {
                throw .malformed(SchemaCompiler.child(child("params"), String(index)), "repeats the param name \(Wording.quote(param.name))")
            }
            params.append(param)
        }
        self.params = params

        if let result = object.member(named: "result") {
            let (descriptor, resultPlace) = try reader.object(result, at: child("result"), what: "a content descriptor")
            guard let schema = reader.schema(descriptor, "schema", at: resultPlace) else {
                throw .malformed(resultPlace, "has no \"schema\"")
            }
            self.resultSchema = schema
        } else {
            self.resultSchema = nil
        }

        self.errors = try reader.array(object, "errors", at: place).enumerated().map { (index, element) throws(OpenRPCDocumentError) in
            try OpenRPCError(element, at: SchemaCompiler.child(child("errors"), String(index)), reader: reader)
        }
        self.examples = try reader.array(object, "examples", at: place).enumerated().map { (index, element) throws(OpenRPCDocumentError) in
            try OpenRPCExample(element, at: SchemaCompiler.child(child("examples"), String(index)), reader: reader)
        }
    }

    // MARK: Params

    /// Params by name: names the method does not take, required ones that are missing, and each value against
    /// its schema. Paths start with the param's name ("/id"); a missing param is reported at "".
    package func validateParams(_ params: JSONObject) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        for param in self.params where param.isRequired && params.member(named: param.name) == nil {
            violations.append(SchemaViolation(path: "", message: "missing required param \(Wording.quote(param.name))"))
        }
        for member in params.effectiveMembers {
            let path = JSONPointer.root.appending(member.key).description
            guard let param = self.params.first(where: { $0.name.utf8.elementsEqual(member.key.utf8) }) else {
                violations.append(SchemaViolation(path: path, message: "is not a param of \(name) (\(takes))"))
                continue
            }
            violations += param.schema.validate(member.value).map { $0.nested(under: path) }
        }
        return violations
    }

    /// The `params` member of a call or notification, which may be absent (no params), an object (by name) or
    /// an array (by position), as the method's `paramStructure` allows. An empty array counts as by position.
    package func validateParams(member params: JSONValue?) -> [SchemaViolation] {
        switch params {
        case nil:
            return validateParams(JSONObject())
        case .object(let object) where paramStructure != .byPosition:
            return validateParams(object)
        case .array(let elements) where paramStructure != .byName:
            return validateParams(byPosition: elements)
        case .some(let other):
            let wanted =
                switch paramStructure {
                case .byName: "an object (\(name) takes its params by name)"
                case .byPosition: "an array (\(name) takes its params by position)"
                case .either: "an object or an array"
                }
            return [SchemaViolation(path: "", message: "must be \(wanted), found \(Wording.brief(other))")]
        }
    }

    private func validateParams(byPosition elements: [JSONValue]) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        for (index, param) in params.enumerated() where param.isRequired && index >= elements.count {
            violations.append(SchemaViolation(path: "", message: "missing required param \(Wording.quote(param.name)) (position \(index))"))
        }
        for (index, element) in elements.enumerated() {
            let path = "/\(index)"
            guard index < params.count else {
                violations.append(SchemaViolation(path: path, message: "is beyond the params of \(name) (\(takes))"))
                continue
            }
            violations += params[index].schema.validate(element).map { $0.nested(under: path) }
        }
        return violations
    }

    /// "it takes id, optimistic" or "it takes none".
    private var takes: String {
        params.isEmpty ? "it takes none" : "it takes \(params.map(\.name).joined(separator: ", "))"
    }

    // MARK: Answers

    /// A successful answer's `result` against the method's result schema.
    package func validateResult(_ result: JSONValue) -> [SchemaViolation] {
        guard let resultSchema else {
            let why = isNotification ? "\(name) is a notification the server sends: nothing answers it" : "\(name) has no result in the document"
            return [SchemaViolation(path: "", message: "is not expected: \(why)")]
        }
        return resultSchema.validate(result)
    }

    /// An error answer: its code must be one this method lists, or one of JSON-RPC's own (-32700, -32600,
    /// -32601, -32602, -32603); its data, when the listed error describes data, must be present and match that
    /// schema. Paths are within the error object ("/code", "/data/seq").
    package func validateError(code: Int, data: JSONValue?) -> [SchemaViolation] {
        let listed = errors.filter { $0.code == code }
        if !listed.isEmpty {
            let schemas = listed.compactMap(\.dataSchema)
            guard let data else {
                // Data is optional when one listed error has none, and for JSON-RPC's own codes, which a server
                // also answers from its JSON-RPC layer (a param missing, say) without any.
                if schemas.count < listed.count || OpenRPCError.jsonRPCCodes.contains(code) { return [] }
                return [SchemaViolation(path: "", message: "missing required member \"data\" (error \(code) of \(name) describes its data)")]
            }
            // Several errors may share a code (each its own data): the data must match one of them.
            var first: [SchemaViolation]?
            for schema in schemas {
                let violations = schema.validate(data)
                if violations.isEmpty { return [] }
                first = first ?? violations
            }
            return (first ?? []).map { $0.nested(under: "/data") }
        }
        if OpenRPCError.jsonRPCCodes.contains(code) { return [] }
        let own = OpenRPCError.jsonRPCCodes.map(String.init).joined(separator: ", ")
        let expected =
            errors.isEmpty
            ? "one of JSON-RPC's own (\(own)), as \(name) lists no errors"
            : "one of \(name)'s errors (\(errors.map { String($0.code) }.joined(separator: ", "))) or JSON-RPC's own (\(own))"
        return [SchemaViolation(path: "/code", message: "must be \(expected), found \(code)")]
    }
}
