import DepotJSON

/// The keywords of arrays — `items`, `additionalItems`, `contains`, `minItems`, `maxItems`, `uniqueItems` — as
/// `SchemaEvaluator` applies them to an array instance, wording what fails.
struct ArrayKeywords {
    typealias Finding = SchemaEvaluator.Finding
    typealias Frame = SchemaEvaluator.Frame
    typealias Mode = SchemaEvaluator.Mode

    /// What applies subschemas to the elements.
    let evaluator: SchemaEvaluator

    func checkArray(_ node: SchemaNode, _ elements: [JSONValue], _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]) {
        let start = findings.count
        if node.keywords.minItems != nil || node.keywords.maxItems != nil || node.keywords.uniqueItems {
            checkArrayCounts(node, elements, frame, &findings)
        }
        if let contains = node.keywords.contains {
            checkContains(contains, elements, frame, &findings)
            if mode == .firstFailure && findings.count > start { return }
        }
        switch node.keywords.items {
        case nil:
            break
        case .all(let schema):
            for index in elements.indices {
                if mode == .firstFailure && findings.count > start { return }
                evaluator.checkChild(schema, elements[index], frame, index, mode, &findings)
            }
        case .tuple(let schemas):
            checkTuple(node, schemas, elements, frame, mode, &findings)
        }
    }

    private func checkTuple(
        _ node: SchemaNode, _ schemas: [SchemaNode], _ elements: [JSONValue], _ frame: Frame, _ mode: Mode, _ findings: inout [Finding]
    ) {
        let start = findings.count
        for index in elements.indices.prefix(schemas.count) {
            if mode == .firstFailure && findings.count > start { return }
            evaluator.checkChild(schemas[index], elements[index], frame, index, mode, &findings)
        }
        guard elements.count > schemas.count, let additional = node.keywords.additionalItems else { return }
        if case .boolean(false) = additional.kind {
            findings.append(Self.tooManyElements(frame, allowed: schemas.count, found: elements.count))
            return
        }
        for index in schemas.count..<elements.count {
            if mode == .firstFailure && findings.count > start { return }
            evaluator.checkChild(additional, elements[index], frame, index, mode, &findings)
        }
    }

    /// `contains`: at least one element matches. Undecided elements (a keyword that cannot be checked) leave
    /// the answer undecided when no element matches.
    private func checkContains(_ schema: SchemaNode, _ elements: [JSONValue], _ frame: Frame, _ findings: inout [Finding]) {
        var undecided: [Finding] = []
        for index in elements.indices {
            guard frame.depth < SchemaEvaluator.maxInstanceDepth else {
                findings.append(SchemaEvaluator.instanceTooDeep(frame, String(index)))
                return
            }
            switch evaluator.outcome(schema, elements[index], frame.descending(to: String(index))) {
            case .matches: return
            case .fails: break
            case .undecided(let why): undecided += why
            }
        }
        if undecided.isEmpty {
            findings.append(Self.containsNone(frame, schema, count: elements.count))
        } else {
            findings += undecided
        }
    }

    @inline(never)
    private static func containsNone(_ frame: Frame, _ schema: SchemaNode, count: Int) -> Finding {
        let what = count == 0 ? "it is empty" : "none of its \(Wording.count(count, "element")) does"
        return Finding(
            path: frame.path, keyword: "contains",
            message: "must contain an element that matches the \"contains\" schema at \(schema.location), but \(what)")
    }

    @inline(never)
    private func checkArrayCounts(_ node: SchemaNode, _ elements: [JSONValue], _ frame: Frame, _ findings: inout [Finding]) {
        if let minimum = node.keywords.minItems, elements.count < minimum {
            findings.append(
                Finding(
                    path: frame.path, keyword: "minItems", message: "must have at least \(Wording.count(minimum, "element")), found \(elements.count)"
                ))
        }
        if let maximum = node.keywords.maxItems, elements.count > maximum {
            findings.append(
                Finding(
                    path: frame.path, keyword: "maxItems", message: "must have at most \(Wording.count(maximum, "element")), found \(elements.count)")
            )
        }
        if node.keywords.uniqueItems, let (first, second) = Self.firstRepeat(in: elements) {
            findings.append(
                Finding(path: frame.path, keyword: "uniqueItems", message: "must have unique elements, but elements \(first) and \(second) are equal")
            )
        }
    }

    @inline(never)
    private static func tooManyElements(_ frame: Frame, allowed: Int, found: Int) -> Finding {
        Finding(
            path: frame.path, keyword: "additionalItems",
            message: "must have at most \(Wording.count(allowed, "element")), found \(found) (\"additionalItems\" is false)")
    }

    private static func firstRepeat(in elements: [JSONValue]) -> (Int, Int)? {
        for second in elements.indices {
            for first in 0..<second where elements[first].jsonEquals(elements[second]) {
                return (first, second)
            }
        }
        return nil
    }
}
