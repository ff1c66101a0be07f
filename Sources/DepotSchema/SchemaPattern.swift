import DepotPlatform

/// A `pattern` (or a `patternProperties` name): a regular expression, compiled once, that matches anywhere in
/// a string, as draft-07 says (it is not anchored).
///
/// Draft-07 asks for ECMA-262 regular expressions; Swift's `Regex` syntax agrees with them on everything
/// schemas commonly use (classes, `\\d`, `\\w`, `\\p{L}`, anchors, groups, quantifiers); the suite's optional
/// ecmascript-regex cases list where the two differ. A `Regex` holding captures of any type is not `Sendable`,
/// so it sits behind a mutex; matching is quick and schemas are checked on one thread at a time in practice.
final class SchemaPattern: Sendable {
    /// The pattern as written.
    let source: String
    private let regex: Locked<Regex<AnyRegexOutput>>

    /// Throws when `source` is not a regular expression (the error says why).
    init(_ source: String) throws {
        self.source = source
        self.regex = Locked(try Regex(source))
    }

    /// Whether the pattern matches somewhere in `text`.
    func matches(_ text: String) -> Bool {
        regex.withLock { text.contains($0) }
    }
}
