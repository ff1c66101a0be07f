import DepotJSON

/// The keywords of objects — `properties`, `patternProperties`, `additionalProperties`, `required`, `dependencies`,
/// `propertyNames`, `minProperties`, `maxProperties` — as `SchemaEvaluator` applies them to an object instance.
struct ObjectKeywords {
    typealias Finding = SchemaEvaluator.Finding
    typealias Frame = SchemaEvaluator.Frame
    typealias Mode = SchemaEvaluator.Mode

    /// What applies subschemas to the members.
    let evaluator: SchemaEvaluator

    func checkObject(_ node: SchemaNode, _ object: JSONObject, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        guard let members = checkObjectShape(node, object, frame, mode, &findings) else { return }
        let start = findings.count
        for index in members.indices {
            if mode == .firstFailure && findings.count > start { return }
            checkMember(node, members[index], frame, mode, &findings)
        }
    }

    /// `required`, `minProperties` and `maxProperties`; returns the members whose values still need checking
    /// against `properties` and `additionalProperties`, or nil when there is nothing more to check.
    @inline(never)
    private func checkObjectShape(
        _ node: SchemaNode, _ object: JSONObject, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]
    ) -> [JSONObject.Member]? {
        let start = findings.count
        if !node.keywords.required.isEmpty {
            checkRequired(node.keywords.required, object, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return nil }
        }
        let checksMembers = node.checksMembers
        guard checksMembers || node.keywords.minProperties != nil || node.keywords.maxProperties != nil else { return nil }
        let members = object.effectiveMembers
        checkMemberCount(node, members.count, frame, &findings)
        if mode == .firstFailure && findings.count > start { return nil }
        if !node.keywords.dependencies.isEmpty {
            checkDependencies(node, object, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return nil }
        }
        if let names = node.keywords.propertyNames {
            checkNames(names, members, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return nil }
        }
        return checksMembers ? members : nil
    }

    /// A member's value against `properties`, every `patternProperties` entry its name matches, and, when
    /// neither names it, `additionalProperties`.
    private func checkMember(_ node: SchemaNode, _ member: JSONObject.Member, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        var named = false
        if let schema = node.propertySchema(named: member.key) {
            named = true
            evaluator.checkChild(schema, member.value, frame, member.key, mode, &findings)
        }
        for entry in node.keywords.patternProperties where entry.pattern.matches(member.key) {
            named = true
            if mode == .firstFailure && findings.count > start { return }
            evaluator.checkChild(entry.schema, member.value, frame, member.key, mode, &findings)
        }
        if named { return }
        if let additional = node.keywords.additionalProperties {
            if case .boolean(false) = additional.kind {
                findings.append(Self.memberNotAllowed(frame, member.key, node))
            } else {
                evaluator.checkChild(additional, member.value, frame, member.key, mode, &findings)
            }
        }
    }

    /// `dependencies`: for each member present that has one, the other members it needs, or the schema the
    /// whole object must then match.
    @inline(never)
    private func checkDependencies(_ node: SchemaNode, _ object: JSONObject, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        for dependency in node.keywords.dependencies where object.member(named: dependency.name) != nil {
            switch dependency.demand {
            case .members(let names):
                for name in names where object.member(named: name) == nil {
                    findings.append(
                        Finding(
                            path: frame.path, keyword: "dependencies",
                            message: "has member \(Wording.quote(dependency.name)), so it must also have \(Wording.quote(name))"
                        ))
                    if mode == .firstFailure { return }
                }
            case .schema(let schema):
                let before = findings.count
                evaluator.check(schema, .object(object), frame.applying, mode, &findings)
                for index in before..<findings.count where !findings[index].undecided {
                    findings[index].message += " (as it has member \(Wording.quote(dependency.name)))"
                }
            }
            if mode == .firstFailure && findings.count > start { return }
        }
    }

    /// `propertyNames`: every member's name, as a string, against the schema.
    @inline(never)
    private func checkNames(_ schema: SchemaNode, _ members: [JSONObject.Member], _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        for member in members {
            var found: [Finding] = []
            evaluator.check(schema, .string(member.key), frame.applying, mode, &found)
            for finding in found {
                var named = finding
                if !finding.undecided {
                    named.message = "has a member name \(Wording.quote(member.key)) that \(finding.message)"
                }
                findings.append(named)
            }
            if mode == .firstFailure && !found.isEmpty { return }
        }
    }

    @inline(never)
    private func checkRequired(_ required: [String], _ object: JSONObject, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        for name in required where object.member(named: name) == nil {
            findings.append(Finding(path: frame.path, keyword: "required", message: "missing required member \(Wording.quote(name))"))
            if mode == .firstFailure { return }
        }
    }

    @inline(never)
    private func checkMemberCount(_ node: SchemaNode, _ count: Int, _ frame: Frame, _ findings: inout [Finding]) {
        if let minimum = node.keywords.minProperties, count < minimum {
            findings.append(
                Finding(path: frame.path, keyword: "minProperties", message: "must have at least \(Wording.count(minimum, "member")), found \(count)")
            )
        }
        if let maximum = node.keywords.maxProperties, count > maximum {
            findings.append(
                Finding(path: frame.path, keyword: "maxProperties", message: "must have at most \(Wording.count(maximum, "member")), found \(count)"))
        }
    }

    /// "must not have member \"x\" (it may have \"subscription\")", for a member `additionalProperties: false` refuses.
    @inline(never)
    private static func memberNotAllowed(_ frame: Frame, _ name: String, _ node: SchemaNode) -> Finding {
        let names = node.keywords.properties.map { Wording.quote($0.name) }
        let allowed = names.isEmpty ? "it may have no members" : "it may have \(Wording.alternatives(names, conjunction: "and"))"
        return Finding(path: frame.path, keyword: "additionalProperties", message: "must not have member \(Wording.quote(name)) (\(allowed))")
    }
}
