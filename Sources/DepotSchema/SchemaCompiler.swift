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
    mutating func node(_ value: JSONValue, location: String, base: URIReference, depth: Int) -> SchemaNode {
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
