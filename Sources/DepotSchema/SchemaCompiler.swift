import DepotJSON

/// Turns schema JSON into `SchemaNode`s, following `$ref`s into the root document, and notes every keyword it
/// cannot apply as written (`UnsupportedKeyword`) instead of skipping it quietly.
struct SchemaCompiler {
    /// Schemas nested deeper than this (subschema in subschema, not counting `$ref`s) are not compiled.
    static let maxDepth = 512

    let root: JSONValue
    private var targets: [String: SchemaNode] = [:]
    private var scheduled: Set<String> = []
    private var pending: [(key: String, pointer: JSONPointer)] = []

    init(root: JSONValue) {
        self.root = root
    }

    /// Compiles `schema` found at `location`, then every schema a `$ref` leads to.
    static func compile(_ schema: JSONValue, root: JSONValue, location: String) -> CompiledSchemas {
        var compiler = SchemaCompiler(root: root)
        let entry = compiler.node(schema, location: location, depth: 0)
        while let (key, pointer) = compiler.pending.popLast() {
            // Resolvable: `reference(_:at:)` checked before scheduling.
            let target = pointer.resolve(in: root)!
            compiler.targets[key] = compiler.node(target, location: key, depth: 0)
        }
        return CompiledSchemas(entry: entry, targets: compiler.targets)
    }

    // MARK: Schemas

    /// A node for `value` at `location`. A value that is not a schema becomes a node that blocks validation.
    private mutating func node(_ value: JSONValue, location: String, depth: Int) -> SchemaNode {
        switch value {
        case .bool(let accepts):
            return SchemaNode(location: location, kind: .boolean(accepts), issues: [], blockingIssues: [])
        case .object(let object):
            guard depth < Self.maxDepth else {
                return blocked(location: location, "nests schemas deeper than \(Self.maxDepth) levels")
            }
            return objectNode(object, location: location, depth: depth)
        default:
            return blocked(location: location, "must be a schema (an object or a boolean), found \(Wording.brief(value))")
        }
    }

    private func blocked(location: String, _ problem: String) -> SchemaNode {
        let issue = UnsupportedKeyword(location: location, keyword: "", reason: .malformed(problem))
        return SchemaNode(
            location: location,
            kind: .keywords,
            issues: [issue],
            blockingIssues: [SchemaNode.BlockingIssue(issue: issue, appliesTo: .any)]
        )
    }

    private mutating func objectNode(_ object: JSONObject, location: String, depth: Int) -> SchemaNode {
        var issues: [UnsupportedKeyword] = []
        var blocking: [SchemaNode.BlockingIssue] = []
        func note(_ keyword: String, _ reason: UnsupportedKeyword.Reason, appliesTo kind: InstanceKind) {
            let issue = UnsupportedKeyword(location: Self.child(location, keyword), keyword: keyword, reason: reason)
            issues.append(issue)
            if issue.blocksValidation { blocking.append(SchemaNode.BlockingIssue(issue: issue, appliesTo: kind)) }
        }

        let members = object.effectiveMembers
        if let reference = object.member(named: "$ref") {
            for member in members where member.key != "$ref" && !SchemaVocabulary.ignored.contains(member.key) {
                note(member.key, .ignoredBesideReference, appliesTo: .any)
            }
            switch resolveReference(reference) {
            case .target(let key):
                return SchemaNode(location: location, kind: .reference(key), issues: issues, blockingIssues: blocking)
            case .problem(let problem):
                note("$ref", problem, appliesTo: .any)
                return SchemaNode(location: location, kind: .keywords, issues: issues, blockingIssues: blocking)
            }
        }

        var keywords = SchemaKeywords()
        for member in members {
            let keyword = member.key
            if SchemaVocabulary.ignored.contains(keyword) { continue }
            if let kind = SchemaVocabulary.notImplemented[keyword] {
                note(keyword, .notImplemented, appliesTo: kind)
                continue
            }
            guard let kind = SchemaVocabulary.implemented[keyword] else {
                note(keyword, .unknown, appliesTo: .any)
                continue
            }
            let problem = parse(keyword, member.value, into: &keywords, location: location, depth: depth)
            if let problem {
                note(keyword, .malformed(problem), appliesTo: kind)
            } else {
                keywords.names.insert(keyword)
            }
        }
        return SchemaNode(location: location, kind: .keywords, keywords: keywords, issues: issues, blockingIssues: blocking)
    }

    /// Stores one keyword's value in `keywords`; returns what is wrong with the value instead when it is not
    /// what draft-07 requires.
    private mutating func parse(
        _ keyword: String, _ value: JSONValue, into keywords: inout SchemaKeywords, location: String, depth: Int
    ) -> String? {
        let here = Self.child(location, keyword)
        func subschema(_ value: JSONValue, at location: String) -> SchemaNode {
            node(value, location: location, depth: depth + 1)
        }
        func schemaList() -> [SchemaNode]? {
            guard let elements = value.arrayValue, !elements.isEmpty else { return nil }
            return elements.enumerated().map { subschema($1, at: Self.child(here, String($0))) }
        }

        switch keyword {
        case "type":
            let names = value.arrayValue ?? [value]
            let types = names.compactMap { $0.stringValue.flatMap(SchemaType.init(rawValue:)) }
            guard types.count == names.count, !types.isEmpty, Set(types).count == types.count else {
                let allowed = SchemaType.allCases.map(\.rawValue).joined(separator: ", ")
                return "must be a type name (\(allowed)) or an array of different ones, found \(Wording.brief(value))"
            }
            keywords.types = types
        case "enum":
            guard let elements = value.arrayValue else { return "must be an array of values, found \(Wording.brief(value))" }
            keywords.enumValues = elements
        case "const":
            keywords.constValue = value
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
            guard let number = value.numberValue else {
                let draft4 = value.boolValue != nil && keyword.hasPrefix("exclusive") ? " (the boolean form is draft-04's)" : ""
                return "must be a number, found \(Wording.brief(value))\(draft4)"
            }
            let bound = SchemaKeywords.Bound(number)
            switch keyword {
            case "minimum": keywords.minimum = bound
            case "maximum": keywords.maximum = bound
            case "exclusiveMinimum": keywords.exclusiveMinimum = bound
            default: keywords.exclusiveMaximum = bound
            }
        case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
            guard let count = Self.count(value) else {
                return "must be a non-negative integer, found \(Wording.brief(value))"
            }
            switch keyword {
            case "minLength": keywords.minLength = count
            case "maxLength": keywords.maxLength = count
            case "minItems": keywords.minItems = count
            case "maxItems": keywords.maxItems = count
            case "minProperties": keywords.minProperties = count
            default: keywords.maxProperties = count
            }
        case "uniqueItems":
            guard let flag = value.boolValue else { return "must be true or false, found \(Wording.brief(value))" }
            keywords.uniqueItems = flag
        case "items":
            if let elements = value.arrayValue {
                keywords.items = .tuple(elements.enumerated().map { subschema($1, at: Self.child(here, String($0))) })
            } else {
                keywords.items = .all(subschema(value, at: here))
            }
        case "additionalItems":
            keywords.additionalItems = subschema(value, at: here)
        case "required":
            guard let elements = value.arrayValue else {
                return "must be an array of member names, found \(Wording.brief(value))"
            }
            let names = elements.compactMap(\.stringValue)
            guard names.count == elements.count else {
                return "must be an array of member names (strings), found \(Wording.brief(value))"
            }
            keywords.required = names
        case "properties":
            guard let object = value.objectValue else {
                return "must be an object whose members are schemas, found \(Wording.brief(value))"
            }
            keywords.properties = object.effectiveMembers.map { member in
                SchemaKeywords.Property(name: member.key, schema: subschema(member.value, at: Self.child(here, member.key)))
            }
        case "additionalProperties":
            keywords.additionalProperties = subschema(value, at: here)
        case "allOf", "anyOf", "oneOf":
            guard let list = schemaList() else {
                return "must be a non-empty array of schemas, found \(Wording.brief(value))"
            }
            switch keyword {
            case "allOf": keywords.allOf = list
            case "anyOf": keywords.anyOf = list
            default: keywords.oneOf = list
            }
        case "not":
            keywords.not = subschema(value, at: here)
        case "if":
            keywords.ifSchema = subschema(value, at: here)
        case "then":
            keywords.thenSchema = subschema(value, at: here)
        case "else":
            keywords.elseSchema = subschema(value, at: here)
        default:
            preconditionFailure("\(keyword) is in SchemaVocabulary.implemented but SchemaCompiler does not parse it")
        }
        return nil
    }

    /// A non-negative integer literal; one too large for `Int` counts as `Int.max`, which no length reaches.
    private static func count(_ value: JSONValue) -> Int? {
        guard let number = value.numberValue, number.isInteger, !number.literal.hasPrefix("-") else { return nil }
        return number.intValue ?? Int.max
    }

    // MARK: References

    private enum ReferenceResolution {
        case target(String)
        case problem(UnsupportedKeyword.Reason)
    }

    /// The canonical key of the schema `"$ref": reference` leads to, scheduling it for compilation; or why it
    /// leads nowhere usable.
    private mutating func resolveReference(_ reference: JSONValue) -> ReferenceResolution {
        guard let text = reference.stringValue else {
            return .problem(.malformed("must be a string, found \(Wording.brief(reference))"))
        }
        let quoted = Wording.quote(text)
        guard text.hasPrefix("#") else {
            return .problem(.unresolvableReference(
                "\"$ref\" \(quoted) points outside this document; only references within it (\"#/…\") are supported"
            ))
        }
        guard let fragment = Self.percentDecoded(text.dropFirst()) else {
            return .problem(.unresolvableReference("\"$ref\" \(quoted) has an invalid percent-escape"))
        }
        guard let pointer = JSONPointer(parsing: fragment) else {
            return .problem(.unresolvableReference(
                "\"$ref\" \(quoted) is not a JSON Pointer (it must be \"#\" or start with \"#/\", and \"~\" must be followed by 0 or 1)"
            ))
        }
        guard let target = pointer.resolve(in: root) else {
            return .problem(.unresolvableReference("\"$ref\" \(quoted) leads nowhere: \(Self.whereItStops(pointer, in: root))"))
        }
        switch target {
        case .object, .bool:
            break
        default:
            return .problem(.unresolvableReference("\"$ref\" \(quoted) leads to \(Wording.brief(target)), not a schema"))
        }
        let key = "#" + pointer.description
        if scheduled.insert(key).inserted {
            pending.append((key, pointer))
        }
        return .target(key)
    }

    /// "#/components/schemas has no member \"Stat\"", for a reference that leads nowhere.
    private static func whereItStops(_ pointer: JSONPointer, in root: JSONValue) -> String {
        var reached = JSONPointer.root
        for token in pointer.tokens {
            let next = reached.appending(token)
            if next.resolve(in: root) == nil {
                let value = reached.resolve(in: root)
                let place = "#" + reached.description
                switch value {
                case .object: return "\(place) has no member \(Wording.quote(token))"
                case .array(let elements): return "\(place) has no element \(Wording.quote(token)) (it has \(elements.count))"
                default: return "\(place) is \(value.map(Wording.brief) ?? "absent"), which has no members"
                }
            }
            reached = next
        }
        return "it does not resolve"
    }

    /// `%XX` escapes in a URI fragment decoded as UTF-8; nil for a malformed escape or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `location` + `/token`, escaped as a JSON Pointer.
    static func child(_ location: String, _ token: String) -> String {
        location + "/" + JSONPointer.escape(token)
    }
}
