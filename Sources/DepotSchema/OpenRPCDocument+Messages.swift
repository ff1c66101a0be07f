package import DepotJSON

/// Whole JSON-RPC 2.0 messages held to the document: the envelope JSON-RPC requires, then the method's own
/// result, error or params. Paths are into the message ("/result/items/3", "/error/code", "/params/state/seq").
extension OpenRPCDocument {
    /// An answer to a call of `method`: `jsonrpc` "2.0", an `id`, exactly one of `result` and `error` (an error
    /// with an integer `code` and a string `message`), nothing else; then the result against the method's
    /// result schema, or the error against the errors it lists.
    ///
    /// A method the document does not list may only be answered with one of JSON-RPC's own errors (-32601
    /// "method not found", for a start). `rpc.discover`'s result must look like an OpenRPC document.
    package func validateResponse(_ message: JSONValue, toMethod method: String) -> [SchemaViolation] {
        guard case .object(let object) = message else {
            return [SchemaViolation(path: "", message: "must be a JSON-RPC response object, found \(Wording.brief(message))")]
        }
        var violations = Self.envelope(object, members: ["jsonrpc", "id", "result", "error"], kind: "response (jsonrpc, id, and result or error)")
        switch object.member(named: "id") {
        case nil:
            violations.append(SchemaViolation(path: "", message: "missing required member \"id\""))
        case .string?, .number?, .null?:
            break
        case let other?:
            violations.append(SchemaViolation(path: "/id", message: "must be a string, a number or null, found \(Wording.brief(other))"))
        }

        switch (object.member(named: "result"), object.member(named: "error")) {
        case (nil, nil):
            violations.append(SchemaViolation(path: "", message: "must have member \"result\" or \"error\""))
        case (.some, .some):
            violations.append(SchemaViolation(path: "", message: "must not have both \"result\" and \"error\""))
        case (let result?, nil):
            violations += validateResult(result, of: method).map { $0.nested(under: "/result") }
        case (nil, let error?):
            violations += validateErrorObject(error, of: method).map { $0.nested(under: "/error") }
        }
        return violations
    }

    /// A notification from the server: `jsonrpc` "2.0", a `method` the document marks `"x-notification"`, no
    /// `id`, nothing else; then its `params` against the notification's params.
    package func validateNotification(_ message: JSONValue) -> [SchemaViolation] {
        guard case .object(let object) = message else {
            return [SchemaViolation(path: "", message: "must be a JSON-RPC notification object, found \(Wording.brief(message))")]
        }
        // An "id" gets its own message below.
        var violations = Self.envelope(object, members: ["jsonrpc", "method", "params", "id"], kind: "notification (jsonrpc, method and params)")
        if object.member(named: "id") != nil {
            violations.append(SchemaViolation(path: "", message: "must not have member \"id\": a notification has none"))
        }
        let notifications = "the document's notifications are \(notificationNames.joined(separator: ", "))"
        switch object.member(named: "method") {
        case nil:
            violations.append(SchemaViolation(path: "", message: "missing required member \"method\""))
        case .string(let name)?:
            guard let method = method(named: name) else {
                violations.append(
                    SchemaViolation(path: "/method", message: "is not a notification of the document, found \(Wording.quote(name)); \(notifications)")
                )
                break
            }
            guard method.isNotification else {
                violations.append(
                    SchemaViolation(
                        path: "/method",
                        message: "must be a notification the server sends, found \(Wording.quote(name)), a method clients call; \(notifications)"
                    ))
                break
            }
            violations += method.validateParams(member: object.member(named: "params")).map { $0.nested(under: "/params") }
        case let other?:
            violations.append(SchemaViolation(path: "/method", message: "must be a string, found \(Wording.brief(other))"))
        }
        return violations
    }

    // MARK: Parts

    /// `jsonrpc` is "2.0", and no members beyond `members`.
    private static func envelope(_ object: JSONObject, members allowed: [String], kind: String) -> [SchemaViolation] {
        var violations: [SchemaViolation] = []
        switch object.member(named: "jsonrpc") {
        case nil:
            violations.append(SchemaViolation(path: "", message: "missing required member \"jsonrpc\""))
        case .string("2.0")?:
            break
        case let other?:
            violations.append(SchemaViolation(path: "/jsonrpc", message: "must be \"2.0\", found \(Wording.found(other))"))
        }
        for member in object.effectiveMembers where !allowed.contains(member.key) {
            violations.append(
                SchemaViolation(path: "", message: "must not have member \(Wording.quote(member.key)): a JSON-RPC \(kind) has no other"))
        }
        return violations
    }

    private func validateResult(_ result: JSONValue, of name: String) -> [SchemaViolation] {
        if let method = method(named: name) {
            return method.validateResult(result)
        }
        if name == Self.discoverMethodName {
            return Self.discoverResultSchema.validate(result)
        }
        return [SchemaViolation(path: "", message: "is not expected: \(unknownMethod(name)), so the answer must be an error")]
    }

    /// The error object of an answer: `code` an integer, `message` a string, `data` optional, nothing else;
    /// then the code and data against what the method lists.
    private func validateErrorObject(_ error: JSONValue, of name: String) -> [SchemaViolation] {
        guard case .object(let object) = error else {
            return [SchemaViolation(path: "", message: "must be an error object (code, message, data), found \(Wording.brief(error))")]
        }
        var violations: [SchemaViolation] = []
        var code: Int?
        switch object.member(named: "code") {
        case nil:
            violations.append(SchemaViolation(path: "", message: "missing required member \"code\""))
        case .number(let number)? where number.isInteger && number.intValue != nil:
            code = number.intValue
        case let other?:
            violations.append(SchemaViolation(path: "/code", message: "must be an integer, found \(Wording.brief(other))"))
        }
        switch object.member(named: "message") {
        case nil:
            violations.append(SchemaViolation(path: "", message: "missing required member \"message\""))
        case .string?:
            break
        case let other?:
            violations.append(SchemaViolation(path: "/message", message: "must be a string, found \(Wording.brief(other))"))
        }
        for member in object.effectiveMembers where !["code", "message", "data"].contains(member.key) {
            violations.append(
                SchemaViolation(path: "", message: "must not have member \(Wording.quote(member.key)): a JSON-RPC error has code, message and data"))
        }
        guard let code else { return violations }
        if let method = method(named: name) {
            violations += method.validateError(code: code, data: object.member(named: "data"))
        } else if !OpenRPCError.jsonRPCCodes.contains(code), !(name.isEmpty && connectionErrorCodes.contains(code)) {
            let own = OpenRPCError.jsonRPCCodes.map(String.init).joined(separator: ", ")
            violations.append(
                SchemaViolation(path: "/code", message: "must be one of JSON-RPC's own (\(own)) as \(unknownMethod(name)), found \(code)"))
        }
        return violations
    }

    /// The codes a server may answer with to no request when it refuses a connection: the document's
    /// `x-connection-errors`, each an error object or a `$ref` to one in `components/errors`.
    var connectionErrorCodes: Set<Int> {
        let errors = json["components"]?["errors"]
        return Set(
            (json["x-connection-errors"]?.arrayValue ?? []).compactMap { entry in
                if let ref = entry["$ref"]?.stringValue, ref.hasPrefix("#/components/errors/") {
                    return errors?[String(ref.dropFirst("#/components/errors/".count))]?["code"]?.numberValue?.intValue
                }
                return entry["code"]?.numberValue?.intValue
            })
    }

    private func unknownMethod(_ name: String) -> String {
        if name == Self.discoverMethodName { return "\(name) is OpenRPC's own" }
        return "\(Wording.quote(name)) is not a method of the document (it has \(calledMethodNames.joined(separator: ", ")))"
    }

    /// What `rpc.discover` answers, checked only as far as this validator reads documents.
    private static let discoverResultSchema = JSONSchema([
        "type": "object",
        "required": ["openrpc", "info", "methods"],
        "properties": [
            "openrpc": ["type": "string"],
            "info": ["type": "object"],
            "methods": ["type": "array", "items": ["type": "object", "required": ["name"]]],
        ],
    ])
}
