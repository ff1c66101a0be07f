import DepotJSON

/// Turns schema JSON into `SchemaNode`s, following `$ref`s into the known documents (`SchemaResources`), and
/// notes every keyword it cannot apply as written (`UnsupportedKeyword`) instead of skipping it quietly.
struct SchemaCompiler {
    /// Schemas nested deeper than this (subschema in subschema, not counting `$ref`s) are not compiled.
    static let maxDepth = 512

    let resources: SchemaResources
    private var targets: [String: SchemaNode] = [:]
    private var scheduled: Set<String> = []
    private var pending: [SchemaResources.Location] = []

    init(resources: SchemaResources) {
        self.resources = resources
    }

    /// Compiles `schema`, found at `location` where the base URI is `base`, then every schema a `$ref` leads to.
    static func compile(
        _ schema: JSONValue, resources: SchemaResources, location: String, base: URIReference, integers: IntegerRule
    ) -> CompiledSchemas {
        var compiler = SchemaCompiler(resources: resources)
        let entry = compiler.node(schema, location: location, base: base, depth: 0)
        while let target = compiler.pending.popLast() {
            // `resolveReference` schedules only locations that hold a schema.
            let value = resources.value(at: target) ?? .bool(false)
            compiler.targets[target.key] = compiler.node(value, location: target.key, base: resources.base(at: target), depth: 0)
        }
        return CompiledSchemas(entry: entry, targets: compiler.targets, integers: integers)
    }

    // MARK: Schemas

    /// A node for `value` at `location`, where the base URI around it is `base`. A value that is not a schema
    /// becomes a node that blocks validation.
    private mutating func node(_ value: JSONValue, location: String, base: URIReference, depth: Int) -> SchemaNode {
        switch value {
        case .bool(let accepts):
            return SchemaNode(location: location, kind: .boolean(accepts), issues: [], blockingIssues: [])
        case .object(let object):
            guard depth < Self.maxDepth else {
                return blocked(location: location, "nests schemas deeper than \(Self.maxDepth) levels")
            }
            return objectNode(object, location: location, base: SchemaResources.base(of: object, within: base), depth: depth)
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

    private mutating func objectNode(_ object: JSONObject, location: String, base: URIReference, depth: Int) -> SchemaNode {
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
            switch resolveReference(reference, base: base) {
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
            let problem = parse(keyword, member.value, into: &keywords, location: location, base: base, depth: depth)
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
        _ keyword: String, _ value: JSONValue, into keywords: inout SchemaKeywords, location: String, base: URIReference, depth: Int
    ) -> String? {
        let here = Self.child(location, keyword)
        func subschema(_ value: JSONValue, at location: String) -> SchemaNode {
            node(value, location: location, base: base, depth: depth + 1)
        }
        func schemaMap() -> [(name: String, schema: SchemaNode)]? {
            guard let object = value.objectValue else { return nil }
            return object.effectiveMembers.map { ($0.key, subschema($0.value, at: Self.child(here, $0.key))) }
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
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
            guard let number = value.numberValue else {
                let draft4 = value.boolValue != nil && keyword.hasPrefix("exclusive") ? " (the boolean form is draft-04's)" : ""
                return "must be a number, found \(Wording.brief(value))\(draft4)"
            }
            let bound = SchemaKeywords.Bound(number)
            switch keyword {
            case "multipleOf":
                guard !bound.value.isZero, !bound.value.isNegative else { return "must be a number greater than 0, found \(Wording.brief(value))" }
                keywords.multipleOf = bound
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
        case "pattern":
            guard let source = value.stringValue else { return "must be a regular expression (a string), found \(Wording.brief(value))" }
            do {
                keywords.pattern = try SchemaPattern(source)
            } catch {
                return "is not a regular expression: \(error)"
            }
        case "contains":
            keywords.contains = subschema(value, at: here)
        case "propertyNames":
            keywords.propertyNames = subschema(value, at: here)
        case "patternProperties":
            guard let object = value.objectValue else {
                return "must be an object whose names are regular expressions and whose members are schemas, found \(Wording.brief(value))"
            }
            var entries: [SchemaKeywords.PatternProperty] = []
            for member in object.effectiveMembers {
                guard let pattern = try? SchemaPattern(member.key) else {
                    return "has a name that is not a regular expression: \(Wording.quote(member.key))"
                }
                entries.append(SchemaKeywords.PatternProperty(pattern: pattern, schema: subschema(member.value, at: Self.child(here, member.key))))
            }
            keywords.patternProperties = entries
        case "dependencies":
            guard let object = value.objectValue else {
                return "must be an object whose members are schemas or arrays of member names, found \(Wording.brief(value))"
            }
            var dependencies: [SchemaKeywords.Dependency] = []
            for member in object.effectiveMembers {
                if case .array(let elements) = member.value {
                    let names = elements.compactMap(\.stringValue)
                    guard names.count == elements.count else {
                        return "lists member names that are not all strings for \(Wording.quote(member.key))"
                    }
                    dependencies.append(SchemaKeywords.Dependency(name: member.key, demand: .members(names)))
                } else {
                    let schema = subschema(member.value, at: Self.child(here, member.key))
                    dependencies.append(SchemaKeywords.Dependency(name: member.key, demand: .schema(schema)))
                }
            }
            keywords.dependencies = dependencies
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
            guard let entries = schemaMap() else {
                return "must be an object whose members are schemas, found \(Wording.brief(value))"
            }
            keywords.properties = entries.map { SchemaKeywords.Property(name: $0.name, schema: $0.schema) }
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

    /// A non-negative whole number (`2`, or `2.0` as draft-07 allows); one too large for `Int` counts as
    /// `Int.max`, which no length reaches.
    private static func count(_ value: JSONValue) -> Int? {
        guard let number = value.numberValue else { return nil }
        return DecimalNumber(number).integerValue
    }

    // MARK: References

    private enum ReferenceResolution {
        case target(String)
        case problem(UnsupportedKeyword.Reason)
    }

    /// The key of the schema `"$ref": reference` leads to (written where the base URI is `base`), scheduling
    /// it for compilation; or why it leads nowhere usable.
    private mutating func resolveReference(_ reference: JSONValue, base: URIReference) -> ReferenceResolution {
        guard let text = reference.stringValue else {
            return .problem(.malformed("must be a string, found \(Wording.brief(reference))"))
        }
        let quoted = Wording.quote(text)
        let location: SchemaResources.Location
        switch resources.resolve(text, against: base) {
        case .found(let found):
            location = found
        case .unknownDocument(let uri):
            return .problem(
                .unresolvableReference(
                    "\"$ref\" \(quoted) points to \(Wording.quote(uri)), a document this validator does not have (it never fetches one)"
                ))
        case .unknownName(let uri):
            return .problem(.unresolvableReference("\"$ref\" \(quoted) names \(Wording.quote(uri)), which no \"$id\" declares"))
        case .badPointer:
            return .problem(
                .unresolvableReference(
                    "\"$ref\" \(quoted) is not a JSON Pointer (it must be \"#\" or start with \"#/\", and \"~\" must be followed by 0 or 1)"
                ))
        }
        guard let document = resources.documents[location.document], let target = location.pointer.resolve(in: document) else {
            let root = resources.documents[location.document] ?? .null
            return .problem(.unresolvableReference("\"$ref\" \(quoted) leads nowhere: \(Self.whereItStops(location, in: root))"))
        }
        switch target {
        case .object, .bool:
            break
        default:
            return .problem(.unresolvableReference("\"$ref\" \(quoted) leads to \(Wording.brief(target)), not a schema"))
        }
        if scheduled.insert(location.key).inserted {
            pending.append(location)
        }
        return .target(location.key)
    }

    /// "#/components/schemas has no member \"Stat\"", for a reference that leads nowhere.
    private static func whereItStops(_ location: SchemaResources.Location, in root: JSONValue) -> String {
        var reached = JSONPointer.root
        for token in location.pointer.tokens {
            let next = reached.appending(token)
            if next.resolve(in: root) == nil {
                let value = reached.resolve(in: root)
                let place = location.document + "#" + reached.description
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

    /// `location` + `/token`, escaped as a JSON Pointer.
    static func child(_ location: String, _ token: String) -> String {
        location + "/" + JSONPointer.escape(token)
    }
}
