import DepotCore
import DepotJSON
package import DepotSources

/// Where the array of items sits in a response: nowhere (the response is the array), or under a member,
/// `results`, or a dotted path of members, `data.results`. A member whose name contains a dot cannot be named.
package struct ItemsPath: Sendable, Equatable, CustomStringConvertible {
    /// The member names from the outside in; empty for the whole response.
    package let members: [String]

    /// The whole response is the array.
    package static let whole = ItemsPath(members: [])

    package init(members: [String]) {
        self.members = members
    }

    /// Parses `results` or `data.results`. An empty path, or an empty member (`data..results`), is an error.
    package init(parsing text: String) throws(SettingProblem) {
        guard !text.isEmpty else {
            throw SettingProblem("is empty; leave it out when the response itself is the array of items")
        }
        let members = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !members.contains(where: \.isEmpty) else {
            throw SettingProblem("has an empty member name; write member names separated by dots, as in data.results")
        }
        self.members = members
    }

    package var description: String { members.joined(separator: ".") }

    /// The array at this path in `response`, or an error for `what` (`GET https://host/items`) that says what
    /// was found instead and how to fix the path.
    func items(in response: JSONValue, from what: String) throws(SourceError) -> [JSONValue] {
        var value = response
        for (depth, member) in members.enumerated() {
            let place = depth == 0 ? "the response" : "\"\(members[..<depth].joined(separator: "."))\""
            guard case .object(let object) = value else {
                throw SourceError(
                    .invalidData,
                    "\(what): \(place) is \(value.typeNameWithArticle), not an object with a member \"\(member)\"; check --items-path (\"itemsPath\")"
                )
            }
            guard let next = object[member] else {
                let found = object.keys.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ")
                throw SourceError(
                    .invalidData,
                    "\(what): \(place) has no member \"\(member)\" (it has \(found.isEmpty ? "none" : found)); check --items-path (\"itemsPath\")")
            }
            value = next
        }
        guard case .array(let elements) = value else {
            let place = members.isEmpty ? "the response" : "\"\(description)\""
            let hint =
                members.isEmpty && value.objectValue != nil
                ? "; if the items are in a member, name it with --items-path (\"itemsPath\"), as in results"
                : ""
            throw SourceError(.invalidData, "\(what): \(place) is \(value.typeNameWithArticle), not a JSON array of items\(hint)")
        }
        return elements
    }
}
