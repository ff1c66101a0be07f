import DepotJSON

/// The keywords of numbers and strings — `minimum`, `maximum`, their exclusive forms, `multipleOf`, `pattern`,
/// `minLength`, `maxLength` — as `SchemaEvaluator` applies them, wording what fails. They look at one value, never
/// at a subschema.
enum ScalarKeywords {
    typealias Finding = SchemaEvaluator.Finding
    typealias Frame = SchemaEvaluator.Frame

    @inline(never)
    static func checkNumber(_ node: SchemaNode, _ number: JSONNumber, _ frame: Frame, _ findings: inout [Finding]) {
        guard
            node.keywords.minimum != nil || node.keywords.maximum != nil || node.keywords.exclusiveMinimum != nil
                || node.keywords.exclusiveMaximum != nil
                || node.keywords.multipleOf != nil
        else { return }
        let value = DecimalNumber(number)
        func fail(_ keyword: String, _ relation: String, _ bound: SchemaKeywords.Bound) {
            findings.append(
                Finding(
                    path: frame.path, keyword: keyword,
                    message: "must be \(relation) \(bound.literal.literal), found \(Wording.found(.number(number)))"))
        }
        if let bound = node.keywords.minimum, value < bound.value { fail("minimum", "at least", bound) }
        if let bound = node.keywords.exclusiveMinimum, value <= bound.value { fail("exclusiveMinimum", "greater than", bound) }
        if let bound = node.keywords.maximum, value > bound.value { fail("maximum", "at most", bound) }
        if let bound = node.keywords.exclusiveMaximum, value >= bound.value { fail("exclusiveMaximum", "less than", bound) }
        if let divisor = node.keywords.multipleOf, !value.isMultiple(of: divisor.value) { fail("multipleOf", "a multiple of", divisor) }
    }

    /// Lengths count Unicode scalars (code points), as draft-07's "characters" (RFC 8259's) are: "é" written
    /// as e + U+0301 is 2, an emoji flag is 2, though Swift would count one `Character` for each.
    @inline(never)
    static func checkString(_ node: SchemaNode, _ string: String, _ frame: Frame, _ findings: inout [Finding]) {
        if let pattern = node.keywords.pattern, !pattern.matches(string) {
            findings.append(
                Finding(
                    path: frame.path, keyword: "pattern",
                    message: "must match the pattern \(Wording.quote(pattern.source)), found \(Wording.found(.string(string)))")
            )
        }
        guard node.keywords.minLength != nil || node.keywords.maxLength != nil else { return }
        let length = string.unicodeScalars.count
        if let minimum = node.keywords.minLength, length < minimum {
            findings.append(
                Finding(
                    path: frame.path, keyword: "minLength",
                    message: "must be at least \(Wording.count(minimum, "character")) long, found \(Wording.count(length, "character"))"
                ))
        }
        if let maximum = node.keywords.maxLength, length > maximum {
            findings.append(
                Finding(
                    path: frame.path, keyword: "maxLength",
                    message: "must be at most \(Wording.count(maximum, "character")) long, found \(Wording.count(length, "character"))"
                ))
        }
    }
}
