package import DepotSources

/// The URL a removal sends DELETE to: a template with `{id}` where the item's id goes, as in
/// `https://api.example.com/items/{id}`. The id is percent-encoded as one path segment, so an id such as
/// `a/b c` becomes `a%2Fb%20c` and can never reach another path.
package struct ItemURLTemplate: Sendable, Equatable, CustomStringConvertible {
    /// The placeholder the id replaces.
    package static let placeholder = "{id}"

    /// As given.
    package let template: String

    /// Checks that `template` is an http(s) URL once `{id}` is filled in, with `{id}` after the host.
    package init(parsing template: String) throws(SettingProblem) {
        guard template.contains(Self.placeholder) else {
            throw SettingProblem("has no \(Self.placeholder) where the item's id goes, as in https://example.com/items/{id}")
        }
        let sample = try HTTPAddress(parsing: template.replacing(Self.placeholder, with: "id"))
        let authority = template.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).prefix(3).joined(separator: "/")
        guard !authority.contains(Self.placeholder) else {
            throw SettingProblem("has \(Self.placeholder) in its host; put it in the path, as in \(sample.scheme)://example.com/items/{id}")
        }
        self.template = template
    }

    /// The URL for the item `id`.
    package func address(for id: String) -> HTTPAddress {
        // Cannot fail: the template parsed with "id" in place of {id}, and a percent-encoded id uses only the same
        // characters, which a path segment allows.
        // swift-format-ignore: NeverUseForceTry
        try! HTTPAddress(parsing: template.replacing(Self.placeholder, with: PercentEncoding.encoded(id)))
    }

    /// Shown in messages without the query's values, with `{id}` as written.
    package var description: String { HTTPAddress.redacted(template) }
}
