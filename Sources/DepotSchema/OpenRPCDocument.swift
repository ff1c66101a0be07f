package import DepotJSON

/// An OpenRPC 1.3 document (rpc-schema/openrpc.json): its methods, the notifications the server sends (listed
/// among the methods with `"x-notification": true`, as OpenRPC has no place for them) and its components.
package struct OpenRPCDocument: Sendable {
    /// The document as parsed; what `rpc.discover` answers.
    package let json: JSONValue
    /// Calls and notifications, in document order.
    package let methods: [OpenRPCMethod]

    /// The method OpenRPC reserves for asking a server for its document. It is not listed in the document.
    package static let discoverMethodName = "rpc.discover"

    /// Parses and reads `bytes`; throws when they are not JSON, when `methods` is missing or not an array, or
    /// when a method, param, result or error lacks what the checks need (the error says where).
    package init(parsing bytes: [UInt8]) throws(OpenRPCDocumentError) {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw OpenRPCDocumentError(reason: .invalidJSON(error), location: "#")
        }
        try self.init(json: json)
    }

    package init(json: JSONValue) throws(OpenRPCDocumentError) {
        guard case .object(let object) = json else {
            throw .malformed("#", "must be an object, found \(Wording.brief(json))")
        }
        guard let methodsValue = object.member(named: "methods") else {
            throw .malformed("#", "has no \"methods\"; an OpenRPC document lists its methods there")
        }
        guard let elements = methodsValue.arrayValue else {
            throw .malformed("#/methods", "must be an array of methods, found \(Wording.brief(methodsValue))")
        }
        let reader = OpenRPCReader(root: json)
        var methods: [OpenRPCMethod] = []
        for (index, element) in elements.enumerated() {
            let method = try OpenRPCMethod(element, at: "#/methods/\(index)", reader: reader)
            guard !methods.contains(where: { $0.name == method.name }) else {
                throw .malformed("#/methods/\(index)", "repeats the method name \(Wording.quote(method.name))")
            }
            methods.append(method)
        }
        self.json = json
        self.methods = methods
    }

    package func method(named name: String) -> OpenRPCMethod? {
        methods.first { $0.name == name }
    }

    /// The methods clients call (everything but notifications), in document order.
    package var calledMethodNames: [String] {
        methods.filter { !$0.isNotification }.map(\.name)
    }

    /// The notifications the server sends, in document order.
    package var notificationNames: [String] {
        methods.filter(\.isNotification).map(\.name)
    }

    /// Every keyword, in every schema of the document (params, results, error data, `components/schemas`, and
    /// whatever their `$ref`s lead to), that the validator does not apply as written; each listed once.
    package var unsupportedKeywords: [UnsupportedKeyword] {
        var schemas: [JSONSchema] = methods.flatMap { method in
            method.params.map(\.schema) + [method.resultSchema].compactMap { $0 } + method.errors.compactMap(\.dataSchema)
        }
        if case .object(let components)? = json["components"]?["schemas"] {
            for member in components.effectiveMembers {
                let location = SchemaCompiler.child("#/components/schemas", member.key)
                schemas.append(JSONSchema(member.value, root: json, location: location))
            }
        }
        var seen: Set<String> = []
        return schemas.flatMap(\.unsupportedKeywords).filter { seen.insert("\($0.location) \($0.keyword)").inserted }
    }
}
