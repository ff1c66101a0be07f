import DepotJSON

/// Typed reads of an object's members for the decoders, each failing with a message that names the member and
/// what it held instead.
struct Members {
    let object: JSONObject
    /// What the object is, for messages: "the State".
    let subject: String

    init(object: JSONObject, of subject: String) {
        self.object = object
        self.subject = subject
    }

    private func required(_ name: String) throws(WireDecodingError) -> JSONValue {
        guard let value = object[name] else {
            throw WireDecodingError("\(subject) has no \"\(name)\"")
        }
        return value
    }

    private func wrong(_ name: String, _ value: JSONValue, expected: String) -> WireDecodingError {
        WireDecodingError("\(subject)'s \"\(name)\" must be \(expected), not \(value.jsonText.prefix(40))")
    }

    func integer(_ name: String) throws(WireDecodingError) -> Int {
        let value = try required(name)
        guard let integer = value.numberValue?.intValue else { throw wrong(name, value, expected: "an integer") }
        return integer
    }

    func nonNegativeInteger(_ name: String) throws(WireDecodingError) -> Int {
        let integer = try integer(name)
        guard integer >= 0 else { throw wrong(name, .number(JSONNumber(integer)), expected: "at least 0") }
        return integer
    }

    /// An integer at least 0, or nil when the member is absent.
    func optionalNonNegativeInteger(_ name: String) throws(WireDecodingError) -> Int? {
        guard object[name] != nil else { return nil }
        return try nonNegativeInteger(name)
    }

    /// A string, or nil when the member is absent.
    func optionalString(_ name: String) throws(WireDecodingError) -> String? {
        guard object[name] != nil else { return nil }
        return try string(name)
    }

    /// true or false, or nil when the member is absent.
    func optionalBool(_ name: String) throws(WireDecodingError) -> Bool? {
        guard object[name] != nil else { return nil }
        return try bool(name)
    }

    /// An object's members, to read in turn.
    func members(_ name: String) throws(WireDecodingError) -> Members {
        let value = try required(name)
        guard case .object(let inner) = value else { throw wrong(name, value, expected: "an object") }
        return Members(object: inner, of: "\(subject)'s \(name)")
    }

    func string(_ name: String) throws(WireDecodingError) -> String {
        let value = try required(name)
        guard case .string(let string) = value else { throw wrong(name, value, expected: "a string") }
        return string
    }

    func bool(_ name: String) throws(WireDecodingError) -> Bool {
        let value = try required(name)
        guard case .bool(let bool) = value else { throw wrong(name, value, expected: "true or false") }
        return bool
    }

    /// A string that is one of an enum's raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, of _: Choice.Type) throws(WireDecodingError) -> Choice
    where Choice.RawValue == String {
        let value = try required(name)
        guard case .string(let text) = value, let choice = Choice(rawValue: text) else {
            let allowed = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw wrong(name, value, expected: "one of \(allowed)")
        }
        return choice
    }

    /// An array of objects.
    func objects(_ name: String) throws(WireDecodingError) -> [JSONValue] {
        let value = try required(name)
        guard case .array(let elements) = value else { throw wrong(name, value, expected: "an array") }
        for element in elements {
            guard case .object = element else { throw wrong(name, element, expected: "an array of objects") }
        }
        return elements
    }

    /// An array of strings.
    func strings(_ name: String) throws(WireDecodingError) -> [String] {
        let value = try required(name)
        guard case .array(let elements) = value else { throw wrong(name, value, expected: "an array") }
        return try elements.map { element throws(WireDecodingError) in
            guard case .string(let string) = element else { throw wrong(name, element, expected: "an array of strings") }
            return string
        }
    }
}
