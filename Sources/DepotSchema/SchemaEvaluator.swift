import DepotJSON

/// Applies compiled schemas to an instance, as draft-07 says, and words what fails.
///
/// Two modes: `.full` collects every violation with its best wording; `.firstFailure` stops at the first one
/// and is what `if`, `not`, `anyOf` and `oneOf` use to ask "does this subschema match?".
struct SchemaEvaluator {
    /// Instances nested deeper than this are not descended into (the parser already stops at 512 levels;
    /// values built in code are not limited, and recursion must stay bounded).
    static let maxInstanceDepth = 512
    /// Schemas applied one inside another (subschemas, `$ref`s, descents into the instance) beyond this are not
    /// applied. A `$ref` cycle is caught long before; this bounds the stack whatever the schema.
    static let maxNesting = 2_048

    enum Mode {
        case full, firstFailure
    }

    /// A violation while evaluating; becomes a `SchemaViolation` at the end.
    struct Finding {
        let path: JSONPointer
        /// The schema keyword that failed (`type`, `required`, `maxLength`…); for a limit of the validator's own or a
        /// `$ref` cycle, the keyword being followed.
        let keyword: String
        var message: String
        /// The types a failed `type` keyword wanted, so that `anyOf`/`oneOf` alternatives that differ only in
        /// type can be merged into one "must be a string or an integer".
        var expectedTypes: [SchemaType]? = nil
        /// The validator could not decide (a limit, a `$ref` cycle, a keyword it cannot apply): neither a match
        /// nor a mismatch, so `not`, `if`, `anyOf` and `oneOf` pass it on instead of reading it as "no match".
        var undecided = false
    }

    /// What a subschema says of an instance, when `not`, `if`, `anyOf` or `oneOf` ask.
    enum Outcome {
        case matches, fails
        /// Could not be decided; the findings say why.
        case undecided([Finding])
    }

    /// Where the evaluation is: in the instance, and how deep in schemas.
    struct Frame {
        var path: JSONPointer
        var depth: Int
        var nesting: Int
        /// The `$ref`s followed since the evaluation last moved to another instance location: following one of
        /// them again would never end.
        var referencesHere: [String]

        static let start = Frame(path: .root, depth: 0, nesting: 0, referencesHere: [])

        /// The same instance, one schema deeper.
        var applying: Frame {
            var next = self
            next.nesting += 1
            return next
        }

        /// A member or element of the instance.
        func descending(to token: String) -> Frame {
            Frame(path: path.appending(token), depth: depth + 1, nesting: nesting + 1, referencesHere: [])
        }
    }

    let schemas: CompiledSchemas

    func violations(of instance: JSONValue) -> [SchemaViolation] {
        var findings: [Finding] = []
        check(schemas.entry, instance, .start, .full, &findings)
        return findings.map { SchemaViolation(path: $0.path.description, keyword: $0.keyword, message: $0.message) }
    }

    func matches(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame) -> Bool {
        if case .matches = outcome(node, instance, frame) { return true }
        return false
    }

    func outcome(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame) -> Outcome {
        var findings: [Finding] = []
        check(node, instance, frame, .firstFailure, &findings)
        if findings.isEmpty { return .matches }
        let undecided = findings.filter(\.undecided)
        return undecided.isEmpty ? .fails : .undecided(undecided)
    }

    // MARK: Schemas
    //
    // The functions that recurse (check, follow, checkKeywords, checkArray, checkObject, checkChild and the
    // composition ones) keep their frames small, because a 512-level instance puts thousands of them on the
    // stack: messages are built in separate `@inline(never)` functions.

    func check(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        guard frame.nesting < Self.maxNesting else {
            findings.append(Self.nestedTooDeep(frame))
            return
        }
        if !node.blockingIssues.isEmpty, reportBlockingIssues(node, instance, frame, mode, &findings) {
            return
        }
        switch node.kind {
        case .boolean(let accepts):
            if !accepts { findings.append(Self.falseSchema(frame)) }
        case .reference(let key):
            follow(key, instance, frame, mode, &findings)
        case .keywords:
            checkKeywords(node, instance, frame, mode, &findings)
        }
    }

    /// Reports the keywords the validator cannot apply to this instance; true when evaluation should stop.
    @inline(never)
    private func reportBlockingIssues(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) -> Bool {
        for blocking in node.blockingIssues where blocking.appliesTo.includes(instance) {
            findings.append(
                Finding(path: frame.path, keyword: blocking.issue.keyword, message: "cannot be checked: \(blocking.issue)", undecided: true))
            if mode == .firstFailure { return true }
        }
        return false
    }

    private func follow(_ key: String, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        guard !frame.referencesHere.contains(key) else {
            findings.append(Self.referenceCycle(frame, key))
            return
        }
        // Cannot fail: SchemaCompiler compiles every target it accepts a $ref to, under the key it gives it.
        // swift-format-ignore: NeverForceUnwrap
        let target = schemas.targets[key]!
        var next = frame.applying
        next.referencesHere.append(key)
        check(target, instance, next, mode, &findings)
    }

    private func checkKeywords(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        guard checkAnyInstance(node, instance, frame, mode, &findings) else { return }
        switch instance {
        case .array(let elements):
            ArrayKeywords(evaluator: self).checkArray(node, elements, frame, mode, &findings)
        case .object(let object):
            ObjectKeywords(evaluator: self).checkObject(node, object, frame, mode, &findings)
        default:
            checkScalar(node, instance, frame, &findings)
        }
        if mode == .firstFailure && findings.count > start { return }
        if node.hasComposition {
            checkComposition(node, instance, frame, mode, &findings)
        }
    }

    /// `type`, `enum` and `const`; false when the rest of the schema need not be checked: the type is wrong
    /// (the schema's other keywords would only add noise, such as "must not have member …" said of a string,
    /// and the instance is invalid either way), or the first failure is all that was asked for.
    @inline(never)
    private func checkAnyInstance(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) -> Bool {
        if let types = node.keywords.types, !types.contains(where: { $0.matches(instance, integers: schemas.integers) }) {
            let wanted = Wording.alternatives(types.map(\.phrase))
            findings.append(
                Finding(path: frame.path, keyword: "type", message: "must be \(wanted), found \(Wording.brief(instance))", expectedTypes: types))
            return false
        }
        let start = findings.count
        if let values = node.keywords.enumValues, !values.contains(where: { instance.jsonEquals($0) }) {
            let message =
                switch values.count {
                case 0: "cannot be valid: the schema's \"enum\" is empty"
                case 1: "must be \(Wording.expected(values[0])), found \(Wording.found(instance))"
                default: "is not one of \(values.map(Wording.expected).joined(separator: ", ")) (found \(Wording.found(instance)))"
                }
            findings.append(Finding(path: frame.path, keyword: "enum", message: message))
        }
        if let constValue = node.keywords.constValue, !instance.jsonEquals(constValue) {
            findings.append(
                Finding(path: frame.path, keyword: "const", message: "must be \(Wording.expected(constValue)), found \(Wording.found(instance))"))
        }
        return mode == .full || findings.count == start
    }

    @inline(never)
    private func checkScalar(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ findings: inout [Finding]) {
        switch instance {
        case .number(let number): ScalarKeywords.checkNumber(node, number, frame, &findings)
        case .string(let string): ScalarKeywords.checkString(node, string, frame, &findings)
        default: break
        }
    }

    private func checkComposition(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        if !node.keywords.allOf.isEmpty {
            checkAllOf(node, instance, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
        if !node.keywords.anyOf.isEmpty {
            checkAnyOf(node, instance, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
        if !node.keywords.oneOf.isEmpty {
            checkOneOf(node, instance, frame, mode, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
        if node.keywords.not != nil {
            checkNot(node, instance, frame, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
        if node.keywords.ifSchema != nil {
            checkConditional(node, instance, frame, mode, &findings)
        }
    }

    private func checkAllOf(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        for index in node.keywords.allOf.indices {
            check(node.keywords.allOf[index], instance, frame.applying, mode, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
    }

    @inline(never)
    private static func falseSchema(_ frame: Frame) -> Finding {
        Finding(path: frame.path, keyword: "false", message: "is not allowed here (its schema is false)")
    }

    @inline(never)
    private static func nestedTooDeep(_ frame: Frame) -> Finding {
        Finding(path: frame.path, keyword: "$ref", message: "cannot be checked: schemas nest deeper than \(maxNesting) levels here", undecided: true)
    }

    @inline(never)
    static func instanceTooDeep(_ frame: Frame, _ token: String) -> Finding {
        Finding(
            path: frame.path.appending(token), keyword: "type", message: "cannot be checked: nested deeper than \(maxInstanceDepth) levels",
            undecided: true)
    }

    @inline(never)
    private static func referenceCycle(_ frame: Frame, _ key: String) -> Finding {
        let loop = (frame.referencesHere.drop(while: { $0 != key }) + [key]).joined(separator: " → ")
        return Finding(path: frame.path, keyword: "$ref", message: "cannot be checked: \"$ref\" goes round in a circle: \(loop)", undecided: true)
    }

    /// Checks an element, unless that would go deeper than the instance depth limit.
    func checkChild(_ node: SchemaNode, _ child: JSONValue, _ frame: Frame, _ index: Int, _ mode: Mode, _ findings: inout [Finding]) {
        guard frame.depth < Self.maxInstanceDepth else {
            findings.append(Self.instanceTooDeep(frame, String(index)))
            return
        }
        check(node, child, frame.descending(to: String(index)), mode, &findings)
    }

    /// Checks a member, unless that would go deeper than the instance depth limit.
    func checkChild(_ node: SchemaNode, _ child: JSONValue, _ frame: Frame, _ name: String, _ mode: Mode, _ findings: inout [Finding]) {
        guard frame.depth < Self.maxInstanceDepth else {
            findings.append(Self.instanceTooDeep(frame, name))
            return
        }
        check(node, child, frame.descending(to: name), mode, &findings)
    }

    // MARK: anyOf, oneOf, not, if

    private func checkAnyOf(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let alternatives = node.keywords.anyOf
        var undecided: [Finding] = []
        for alternative in alternatives {
            switch outcome(alternative, instance, frame.applying) {
            case .matches: return
            case .fails: break
            case .undecided(let why): undecided += why
            }
        }
        if undecided.isEmpty {
            reportNoMatch("anyOf", alternatives, instance, frame, mode, &findings)
        } else {
            findings += undecided
        }
    }

    private func checkOneOf(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let alternatives = node.keywords.oneOf
        let limit = mode == .firstFailure ? 2 : alternatives.count
        var matching: [Int] = []
        var undecided: [Finding] = []
        for index in alternatives.indices where matching.count < limit {
            switch outcome(alternatives[index], instance, frame.applying) {
            case .matches: matching.append(index)
            case .fails: break
            case .undecided(let why): undecided += why
            }
        }
        if matching.count > 1 {
            findings.append(Self.severalMatch(frame, matching))
        } else if !undecided.isEmpty {
            findings += undecided
        } else if matching.isEmpty {
            reportNoMatch("oneOf", alternatives, instance, frame, mode, &findings)
        }
    }

    @inline(never)
    private static func severalMatch(_ frame: Frame, _ matching: [Int]) -> Finding {
        let names = matching.map { "oneOf/\($0)" }
        return Finding(
            path: frame.path, keyword: "oneOf",
            message: "must match exactly one of the \"oneOf\" schemas, but matches \(Wording.alternatives(names, conjunction: "and"))"
        )
    }

    private func checkNot(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ findings: inout [Finding]) {
        guard let negated = node.keywords.not else { return }
        switch outcome(negated, instance, frame.applying) {
        case .matches: findings.append(notFinding(negated, instance, frame))
        case .fails: break
        case .undecided(let why): findings += why
        }
    }

    @inline(never)
    private func notFinding(_ negated: SchemaNode, _ instance: JSONValue, _ frame: Frame) -> Finding {
        let message = negation(of: negated, instance, frame) ?? "must not match the schema at \(negated.location)"
        return Finding(path: frame.path, keyword: "not", message: message)
    }

    private func checkConditional(_ node: SchemaNode, _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        guard let condition = node.keywords.ifSchema, node.keywords.thenSchema != nil || node.keywords.elseSchema != nil else { return }
        let holds: Bool
        switch outcome(condition, instance, frame.applying) {
        case .matches: holds = true
        case .fails: holds = false
        case .undecided(let why):
            findings += why
            return
        }
        guard let branch = holds ? node.keywords.thenSchema : node.keywords.elseSchema else { return }
        let before = findings.count
        check(branch, instance, frame.applying, mode, &findings)
        if mode == .full && findings.count > before {
            Self.explain(&findings, from: before, condition, holds, instance)
        }
    }

    /// Adds why a `then` or `else` applied to each of its violations.
    @inline(never)
    private static func explain(_ findings: inout [Finding], from start: Int, _ condition: SchemaNode, _ holds: Bool, _ instance: JSONValue) {
        let reason = explanation(of: condition, holds: holds, for: instance)
        for index in start..<findings.count {
            findings[index].message += " (\(reason))"
        }
    }

    /// Reports that no `anyOf`/`oneOf` alternative matches, as precisely as the alternatives allow: when they
    /// all want other types, one merged "must be a string or an integer"; when only one has the instance's type,
    /// that one's own violations (at their own paths); otherwise each alternative's violations in one message.
    @inline(never)
    private func reportNoMatch(
        _ keyword: String, _ alternatives: [SchemaNode], _ instance: JSONValue, _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]
    ) {
        guard mode == .full else {
            findings.append(Finding(path: frame.path, keyword: keyword, message: "matches none of the \"\(keyword)\" schemas"))
            return
        }
        let results: [[Finding]] = alternatives.map { alternative in
            var found: [Finding] = []
            check(alternative, instance, frame.applying, .full, &found)
            return found
        }
        func wrongTypeOnly(_ found: [Finding]) -> Bool {
            !found.isEmpty && found.allSatisfy { $0.path == frame.path && $0.expectedTypes != nil }
        }
        let candidates = results.enumerated().filter { !wrongTypeOnly($0.element) }
        switch candidates.count {
        case 0:
            var types: [SchemaType] = []
            for type in results.flatMap({ $0.flatMap { $0.expectedTypes ?? [] } }) where !types.contains(type) {
                types.append(type)
            }
            let wanted = Wording.alternatives(types.map(\.phrase))
            findings.append(
                Finding(path: frame.path, keyword: "type", message: "must be \(wanted), found \(Wording.brief(instance))", expectedTypes: types))
        case 1:
            findings += candidates[0].element
        default:
            let parts = candidates.map { candidate in
                "\(keyword)/\(candidate.offset): "
                    + candidate.element.map { finding in
                        let relative = JSONPointer(tokens: Array(finding.path.tokens.dropFirst(frame.path.tokens.count))).description
                        return relative.isEmpty ? finding.message : "\(relative): \(finding.message)"
                    }.joined(separator: ", ")
            }
            findings.append(
                Finding(path: frame.path, keyword: keyword, message: "matches none of the \"\(keyword)\" schemas: \(parts.joined(separator: "; "))"))
        }
    }

    /// Why a `not` fails, for the simple schemas that say it best: "must not have member \"error\"",
    /// "must not be \"x\"". Nil when the negated schema is not one of those.
    private func negation(of node: SchemaNode, _ instance: JSONValue, _ frame: Frame, hops: Int = 0) -> String? {
        guard hops < 8 else { return nil }
        if case .reference(let key) = node.kind, let target = schemas.targets[key] {
            return negation(of: target, instance, frame, hops: hops + 1)
        }
        guard case .keywords = node.kind else { return nil }
        let keywords = node.keywords
        switch keywords.names {
        case ["required"]:
            guard case .object(let object) = instance else { return nil }
            let present = keywords.required.filter { object.member(named: $0) != nil }.map(Wording.quote)
            switch present.count {
            case 0: return nil
            case 1: return "must not have member \(present[0])"
            case 2: return "must not have both members \(present[0]) and \(present[1])"
            default: return "must not have all of the members \(Wording.alternatives(present, conjunction: "and"))"
            }
        case ["anyOf"]:
            guard let match = keywords.anyOf.first(where: { matches($0, instance, frame.applying) }) else { return nil }
            return negation(of: match, instance, frame, hops: hops + 1)
        case ["const"]:
            return "must not be \(Wording.found(instance))"
        case ["enum"]:
            let values = keywords.enumValues ?? []
            return "must not be one of \(values.map(Wording.expected).joined(separator: ", ")) (found \(Wording.found(instance)))"
        case ["type"]:
            guard let type = keywords.types?.first(where: { $0.matches(instance, integers: schemas.integers) }) else { return nil }
            return "must not be \(type.phrase)"
        default:
            return nil
        }
    }

    /// Why a `then` or `else` applies, for its violations: "status is \"success\"" when the `if` only looks at
    /// members' values, otherwise which `if` schema matched or did not.
    private static func explanation(of condition: SchemaNode, holds: Bool, for instance: JSONValue) -> String {
        if case .keywords = condition.kind, condition.keywords.names == ["properties"], case .object(let object) = instance {
            return condition.keywords.properties.map { property in
                "\(property.name) is \(object.member(named: property.name).map(Wording.found) ?? "absent")"
            }.joined(separator: ", ")
        }
        return "as the \"if\" schema at \(condition.location) \(holds ? "matches" : "does not match")"
    }
}
