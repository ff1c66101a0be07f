public import DepotJSON

/// What `select` keeps of an item: the members its pointers name, nested as they were, in the item's own member
/// order, and always the id field.
///
/// Pointers go through objects: `/stats/hp` keeps `{"stats": {"hp": …}}`; a member that is missing, or a pointer
/// that would have to step into an array or a scalar, keeps nothing. (To keep an array, select the array.)
public struct ItemProjection: Sendable, Hashable {
    /// The tree of member names to keep; a node marked `whole` keeps its value entire.
    private final class Node: Sendable, Hashable {
        let whole: Bool
        let children: [String: Node]

        init(whole: Bool, children: [String: Node]) {
            self.whole = whole
            self.children = children
        }

        static func == (lhs: Node, rhs: Node) -> Bool {
            lhs.whole == rhs.whole && lhs.children == rhs.children
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(whole)
            hasher.combine(children)
        }
    }

    private let root: Node

    public init(fields: [JSONPointer], idField: String) {
        root = Self.tree(from: fields.map(\.tokens) + [[idField]])
    }

    /// `value` with only the selected members; a value that is not an object is kept as it is.
    public func project(_ value: JSONValue) -> JSONValue {
        Self.project(value, root)
    }

    private static func project(_ value: JSONValue, _ node: Node) -> JSONValue {
        guard case .object(let object) = value else { return value }
        var kept: [JSONObject.Member] = []
        for member in object.effectiveMembers {
            guard let child = node.children[member.key] else { continue }
            if child.whole {
                kept.append(member)
            } else if case .object = member.value, case .object(let inner) = project(member.value, child), !inner.isEmpty {
                kept.append(JSONObject.Member(key: member.key, value: .object(inner)))
            }
        }
        return .object(JSONObject(kept))
    }

    /// The tree for these paths; a path that is a prefix of another keeps the whole value.
    private static func tree(from paths: [[String]]) -> Node {
        var whole = false
        var groups: [String: [[String]]] = [:]
        for path in paths {
            guard let first = path.first else {
                whole = true
                continue
            }
            groups[first, default: []].append(Array(path.dropFirst()))
        }
        return Node(whole: whole, children: groups.mapValues(tree(from:)))
    }
}
