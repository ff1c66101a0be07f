/// A keyword in a schema that `JSONSchema` does not apply as written: one it does not implement, one that
/// draft-07 does not define (a typo, most likely), one that draft-07 ignores, or a value that is not what the
/// keyword requires. A test that lists none of these for a document proves the validator checks every
/// keyword the document uses.
package struct UnsupportedKeyword: Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// A draft-07 keyword this validator does not implement (`pattern`, `format`, `multipleOf`, …).
        /// `validate` reports every instance the keyword applies to as one it cannot check, rather than pass it.
        case notImplemented
        /// Not a draft-07 keyword. Draft-07 says to ignore it and `validate` does, but it is probably a typo.
        case unknown
        /// Next to `$ref`, where draft-07 ignores every other keyword; `validate` ignores it too.
        case ignoredBesideReference
        /// The keyword's value is not what draft-07 requires (the text says what is); `validate` reports every
        /// instance the keyword applies to as one it cannot check.
        case malformed(String)
        /// A `$ref` that does not lead to a value in the document (the text says why); `validate` reports
        /// every instance it applies to as one it cannot check.
        case unresolvableReference(String)
    }

    /// Where the keyword is: a JSON Pointer in URI fragment form ("#/components/schemas/State/pattern") when the
    /// schema's place in its document is known, otherwise a pointer relative to the schema ("/properties/a/pattern").
    package let location: String
    /// The keyword, or "" when the value at `location` as a whole is the problem (a subschema that is a number).
    package let keyword: String
    package let reason: Reason

    package init(location: String, keyword: String, reason: Reason) {
        self.location = location
        self.keyword = keyword
        self.reason = reason
    }

    package var description: String {
        let place = location.isEmpty ? "the schema" : location
        let name = Wording.quote(keyword)
        return switch reason {
        case .notImplemented:
            "\(place): \(name) is a draft-07 keyword this validator does not implement"
        case .unknown:
            "\(place): \(name) is not a draft-07 keyword (a typo?); it is ignored"
        case .ignoredBesideReference:
            "\(place): \(name) is ignored, as draft-07 ignores everything next to \"$ref\""
        case .malformed(let problem):
            keyword.isEmpty ? "\(place): \(problem)" : "\(place): \(name) \(problem)"
        case .unresolvableReference(let problem):
            "\(place): \(problem)"
        }
    }

    /// Whether `validate` refuses to pass instances that this keyword applies to.
    var blocksValidation: Bool {
        switch reason {
        case .notImplemented, .malformed, .unresolvableReference: true
        case .unknown, .ignoredBesideReference: false
        }
    }
}
