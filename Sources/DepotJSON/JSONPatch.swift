/// JSON Patch (RFC 6902): a list of operations — `add`, `remove`, `replace`, `move`, `copy`, `test` — each at a
/// JSON Pointer, applied in order to a copy of the document, so that a patch applies whole or not at all.
///
/// A patch is decoded once (`init(decoding:)`, which names the operation and member at fault) and applied to any
/// number of documents (`apply(to:)`, which names the operation that could not be applied and why).
public struct JSONPatch: Sendable, Equatable {
    /// One operation of a patch.
    public enum Operation: Sendable, Equatable {
        case add(path: JSONPointer, value: JSONValue)
        case remove(path: JSONPointer)
        case replace(path: JSONPointer, value: JSONValue)
        case move(from: JSONPointer, path: JSONPointer)
        case copy(from: JSONPointer, path: JSONPointer)
        case test(path: JSONPointer, value: JSONValue)

        /// The operation's name, as the patch writes it.
        public var name: String {
            switch self {
            case .add: "add"
            case .remove: "remove"
            case .replace: "replace"
            case .move: "move"
            case .copy: "copy"
            case .test: "test"
            }
        }

        /// The location the operation changes or tests.
        public var path: JSONPointer {
            switch self {
            case .add(let path, _), .remove(let path), .replace(let path, _), .move(_, let path), .copy(_, let path), .test(let path, _):
                path
            }
        }
    }

    public var operations: [Operation]

    public init(_ operations: [Operation]) {
        self.operations = operations
    }

    /// Decodes a patch: an array of operation objects. Members an operation does not use are ignored, as RFC 6902
    /// asks (§4).
    public init(decoding value: JSONValue) throws(JSONPatchError) {
        guard case .array(let elements) = value else {
            throw JSONPatchError(index: nil, "a JSON Patch must be an array of operations, not \(value.typeNameWithArticle)")
        }
        var operations: [Operation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            operations.append(try Self.operation(element, at: index))
        }
        self.operations = operations
    }

    private static func operation(_ element: JSONValue, at index: Int) throws(JSONPatchError) -> Operation {
        guard case .object(let object) = element else {
            throw JSONPatchError(index: index, "an operation must be an object, not \(element.typeNameWithArticle)")
        }
        func pointer(_ member: String) throws(JSONPatchError) -> JSONPointer {
            guard let found = object.member(named: member) else {
                throw JSONPatchError(index: index, "the operation has no \"\(member)\"")
            }
            guard case .string(let text) = found else {
                throw JSONPatchError(index: index, "\"\(member)\" must be a JSON Pointer string, not \(found.typeNameWithArticle)")
            }
            guard let pointer = JSONPointer(parsing: text) else {
                throw JSONPatchError(index: index, "\"\(member)\" is not a JSON Pointer: \"\(text)\" (write \"\" or \"/member/0\")")
            }
            return pointer
        }
        func value() throws(JSONPatchError) -> JSONValue {
            guard let value = object.member(named: "value") else { throw JSONPatchError(index: index, "the operation has no \"value\"") }
            return value
        }
        guard let op = object.member(named: "op") else { throw JSONPatchError(index: index, "the operation has no \"op\"") }
        switch op {
        case "add": return .add(path: try pointer("path"), value: try value())
        case "remove": return .remove(path: try pointer("path"))
        case "replace": return .replace(path: try pointer("path"), value: try value())
        case "move": return .move(from: try pointer("from"), path: try pointer("path"))
        case "copy": return .copy(from: try pointer("from"), path: try pointer("path"))
        case "test": return .test(path: try pointer("path"), value: try value())
        default:
            throw JSONPatchError(
                index: index, "\"op\" must be one of add, remove, replace, move, copy, test, not \(Self.describe(op))")
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(text)\"" }
        return value.typeNameWithArticle
    }

    /// The patch as JSON: an array of operation objects.
    public var json: JSONValue {
        .array(
            operations.map { operation in
                var object: JSONObject = ["op": .string(operation.name)]
                switch operation {
                case .move(let from, _), .copy(let from, _): object["from"] = .string(from.description)
                default: break
                }
                object["path"] = .string(operation.path.description)
                switch operation {
                case .add(_, let value), .replace(_, let value), .test(_, let value): object["value"] = value
                default: break
                }
                return .object(object)
            })
    }

    /// `document` with every operation applied in order; the first that cannot be applied fails the whole patch.
    public func apply(to document: JSONValue) throws(JSONPatchError) -> JSONValue {
        var result = document
        for (index, operation) in operations.enumerated() {
            do {
                try Self.perform(operation, on: &result)
            } catch {
                throw JSONPatchError(index: index, "\(operation.name) at \"\(operation.path)\": \(error.reason)")
            }
        }
        return result
    }

    // MARK: Operations

    /// Why an operation could not be applied, in words; the patch's error adds which operation it was.
    private struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func perform(_ operation: Operation, on document: inout JSONValue) throws(Failure) {
        switch operation {
        case .add(let path, let value):
            try add(value, at: path.tokens[...], in: &document)
        case .remove(let path):
            _ = try remove(at: path.tokens[...], in: &document)
        case .replace(let path, let value):
            try replace(at: path.tokens[...], in: &document, with: value)
        case .move(let from, let path):
            guard from != path else {
                // A move to where the value is changes nothing — but the value must be there, as for any move.
                guard from.resolve(in: document) != nil else { throw Failure("\"from\" (\"\(from)\") names nothing in the document") }
                return
            }
            if from.isPrefix(of: path) {
                throw Failure("\"from\" (\"\(from)\") is a parent of \"path\": a value cannot be moved into itself")
            }
            let value = try remove(at: from.tokens[...], in: &document)
            try add(value, at: path.tokens[...], in: &document)
        case .copy(let from, let path):
            guard let value = from.resolve(in: document) else { throw Failure("\"from\" (\"\(from)\") names nothing in the document") }
            try add(value, at: path.tokens[...], in: &document)
        case .test(let path, let expected):
            guard let found = path.resolve(in: document) else { throw Failure("nothing is there to test") }
            guard found.jsonEquals(expected) else { throw Failure("the value there is not the one the test expects") }
        }
    }

    /// Adds `value` at `tokens`: a member set (replaced when it exists), an element inserted (`-` appends), or the
    /// whole document replaced (no tokens).
    private static func add(_ value: JSONValue, at tokens: ArraySlice<String>, in document: inout JSONValue) throws(Failure) {
        guard let token = tokens.first else {
            document = value
            return
        }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            if rest.isEmpty {
                object[token] = value
            } else {
                guard var child = object.member(named: token) else { throw missing(token) }
                try add(value, at: rest, in: &child)
                object[token] = child
            }
            document = .object(object)
        case .array(var elements):
            if rest.isEmpty {
                let index = token == "-" ? elements.count : try arrayIndex(token, count: elements.count, end: true)
                elements.insert(value, at: index)
            } else {
                let index = try arrayIndex(token, count: elements.count)
                try add(value, at: rest, in: &elements[index])
            }
            document = .array(elements)
        default:
            throw Failure("\(document.typeNameWithArticle) has no members or elements to add \"\(token)\" to")
        }
    }

    /// Removes the value at `tokens` and returns it.
    private static func remove(at tokens: ArraySlice<String>, in document: inout JSONValue) throws(Failure) -> JSONValue {
        guard let token = tokens.first else { throw Failure("the whole document cannot be removed") }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            guard var child = object.member(named: token) else { throw missing(token) }
            let removed: JSONValue
            if rest.isEmpty {
                removed = child
                object[token] = nil
            } else {
                removed = try remove(at: rest, in: &child)
                object[token] = child
            }
            document = .object(object)
            return removed
        case .array(var elements):
            let index = try arrayIndex(token, count: elements.count)
            let removed = rest.isEmpty ? elements.remove(at: index) : try remove(at: rest, in: &elements[index])
            document = .array(elements)
            return removed
        default:
            throw Failure("\(document.typeNameWithArticle) has no member or element \"\(token)\"")
        }
    }

    /// Replaces the value at `tokens`, which must exist.
    private static func replace(at tokens: ArraySlice<String>, in document: inout JSONValue, with value: JSONValue) throws(Failure) {
        guard let token = tokens.first else {
            document = value
            return
        }
        let rest = tokens.dropFirst()
        switch document {
        case .object(var object):
            guard var child = object.member(named: token) else { throw missing(token) }
            if rest.isEmpty { child = value } else { try replace(at: rest, in: &child, with: value) }
            object[token] = child
            document = .object(object)
        case .array(var elements):
            let index = try arrayIndex(token, count: elements.count)
            if rest.isEmpty { elements[index] = value } else { try replace(at: rest, in: &elements[index], with: value) }
            document = .array(elements)
        default:
            throw Failure("\(document.typeNameWithArticle) has no member or element \"\(token)\"")
        }
    }

    private static func missing(_ token: String) -> Failure {
        Failure("there is no member \"\(token)\" (missing objects are not created)")
    }

    /// An array index below `count` (or equal to it, where `end` allows adding after the last element): decimal
    /// digits, no leading zero, as RFC 6901 requires.
    private static func arrayIndex(_ token: String, count: Int, end: Bool = false) throws(Failure) -> Int {
        guard let first = token.utf8.first, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            first != UInt8(ascii: "0") || token.utf8.count == 1, token.utf8.count <= 18, let index = Int(token)
        else {
            throw Failure("\"\(token)\" is not an array index")
        }
        guard index < count || (end && index == count) else {
            throw Failure("index \(index) is out of bounds: the array has \(count) element\(count == 1 ? "" : "s")")
        }
        return index
    }
}

/// Why a JSON Patch could not be decoded or applied: the operation at fault (its index in the patch), and why.
public struct JSONPatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The index of the operation at fault; nil when the patch as a whole is wrong (not an array).
    public let index: Int?
    public let reason: String

    public init(index: Int?, _ reason: String) {
        self.index = index
        self.reason = reason
    }

    public var description: String {
        index.map { "operation \($0): \(reason)" } ?? reason
    }
}
