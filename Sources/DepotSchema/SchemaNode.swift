import DepotJSON

/// One schema compiled from its JSON: keyword values checked and parsed once, subschemas compiled too,
/// `$ref`s kept as keys into `CompiledSchemas.targets` (so recursive schemas need no cycles of objects).
///
/// A class only so that a node can hold its subschemas; every property is an immutable `let` of a `Sendable`
/// type, which makes it `Sendable` without anything unchecked.
final class SchemaNode: Sendable {
    enum Kind: Sendable {
        /// `true` accepts everything, `false` nothing.
        case boolean(Bool)
        /// `{"$ref": …}`: the canonical `#/…` key of the schema it leads to (draft-07 ignores its siblings).
        case reference(String)
        /// A schema object; its keywords are in `keywords`.
        case keywords
    }

    /// Where the schema is: `#/…` in its document, or relative to the schema being compiled when its place in
    /// a document is not known.
    let location: String
    let kind: Kind
    /// The keywords of a schema object; empty for the other kinds. Kept out of `kind` so that the evaluator
    /// reads them in place rather than copying them into every stack frame.
    let keywords: SchemaKeywords
    /// Everything about this schema object (not its subschemas) that `JSONSchema` does not apply as written.
    let issues: [UnsupportedKeyword]
    /// The issues that make `validate` refuse instances of the kinds given, rather than pass them unchecked.
    let blockingIssues: [BlockingIssue]

    struct BlockingIssue: Sendable {
        let issue: UnsupportedKeyword
        let appliesTo: InstanceKind
    }

    init(location: String, kind: Kind, keywords: SchemaKeywords = SchemaKeywords(), issues: [UnsupportedKeyword], blockingIssues: [BlockingIssue]) {
        self.location = location
        self.kind = kind
        self.keywords = keywords
        self.issues = issues
        self.blockingIssues = blockingIssues
        self.hasComposition =
            !keywords.allOf.isEmpty || !keywords.anyOf.isEmpty || !keywords.oneOf.isEmpty
            || keywords.not != nil || keywords.ifSchema != nil
    }

    /// Whether any of allOf, anyOf, oneOf, not and if is present. (Stored, like everything the evaluator asks
    /// about `keywords` as a whole: a debug build would copy all of `keywords` onto the stack to compute it.)
    let hasComposition: Bool

    /// The schema `properties` gives for the member `name`.
    func propertySchema(named name: String) -> SchemaNode? {
        keywords.properties.last(where: { $0.name.utf8.elementsEqual(name.utf8) })?.schema
    }

    /// Whether the keywords that look at members' names and values (`properties`, `patternProperties`,
    /// `additionalProperties`, `propertyNames`, `dependencies`) are present.
    var checksMembers: Bool {
        !keywords.properties.isEmpty || !keywords.patternProperties.isEmpty || keywords.additionalProperties != nil
            || keywords.propertyNames != nil || !keywords.dependencies.isEmpty
    }
}

/// The checked keywords of a schema object, parsed. Absent keywords are nil or empty.
struct SchemaKeywords: Sendable {
    struct Property: Sendable {
        let name: String
        let schema: SchemaNode
    }

    /// A bound from `minimum` and friends: the literal for messages, the exact value for comparing.
    struct Bound: Sendable {
        let literal: JSONNumber
        let value: DecimalNumber

        init(_ literal: JSONNumber) {
            self.literal = literal
            self.value = DecimalNumber(literal)
        }
    }

    /// A `patternProperties` entry: members whose names match `pattern` are checked against `schema`.
    struct PatternProperty: Sendable {
        let pattern: SchemaPattern
        let schema: SchemaNode
    }

    /// A `dependencies` entry: when the member `name` is present, the object must also have the members
    /// `required`, or match `schema`.
    struct Dependency: Sendable {
        enum Demand: Sendable {
            case members([String])
            case schema(SchemaNode)
        }

        let name: String
        let demand: Demand
    }

    enum Items: Sendable {
        /// Every element against one schema.
        case all(SchemaNode)
        /// Element `i` against schema `i`; elements beyond the list against `additionalItems`.
        case tuple([SchemaNode])
    }

    /// The names of the keywords present and checked.
    var names: Set<String> = []

    var types: [SchemaType]?
    var enumValues: [JSONValue]?
    var constValue: JSONValue?

    var multipleOf: Bound?
    var minimum: Bound?
    var maximum: Bound?
    var exclusiveMinimum: Bound?
    var exclusiveMaximum: Bound?

    var minLength: Int?
    var maxLength: Int?
    var pattern: SchemaPattern?

    var items: Items?
    var additionalItems: SchemaNode?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false
    var contains: SchemaNode?

    var required: [String] = []
    var properties: [Property] = []
    var patternProperties: [PatternProperty] = []
    var additionalProperties: SchemaNode?
    var propertyNames: SchemaNode?
    var dependencies: [Dependency] = []
    var minProperties: Int?
    var maxProperties: Int?

    var allOf: [SchemaNode] = []
    var anyOf: [SchemaNode] = []
    var oneOf: [SchemaNode] = []
    var not: SchemaNode?
    var ifSchema: SchemaNode?
    var thenSchema: SchemaNode?
    var elseSchema: SchemaNode?

}

/// A compiled schema and every schema its `$ref`s lead to, directly or not, keyed by `document#/pointer`
/// (`#/…` in a document that has no URI).
struct CompiledSchemas: Sendable {
    let entry: SchemaNode
    let targets: [String: SchemaNode]
    /// What the `integer` type accepts.
    let integers: IntegerRule

    /// Every node reachable from the entry, each once, in a stable order (entry first, then targets by key).
    var allNodes: [SchemaNode] {
        var result: [SchemaNode] = []
        var seen: Set<ObjectIdentifier> = []
        func visit(_ node: SchemaNode) {
            guard seen.insert(ObjectIdentifier(node)).inserted else { return }
            result.append(node)
            let keywords = node.keywords
            var children: [SchemaNode] = keywords.properties.map(\.schema) + keywords.patternProperties.map(\.schema)
            for dependency in keywords.dependencies {
                if case .schema(let node) = dependency.demand { children.append(node) }
            }
            switch keywords.items {
            case .all(let node): children.append(node)
            case .tuple(let nodes): children += nodes
            case nil: break
            }
            children += [
                keywords.additionalItems, keywords.additionalProperties, keywords.contains, keywords.propertyNames, keywords.not,
                keywords.ifSchema, keywords.thenSchema, keywords.elseSchema,
            ].compactMap { $0 }
            children += keywords.allOf + keywords.anyOf + keywords.oneOf
            children.forEach(visit)
        }
        visit(entry)
        for (_, target) in targets.sorted(by: { $0.key < $1.key }) {
            visit(target)
        }
        return result
    }
}
