import DepotJSON

/// The documents a schema's `$ref`s may lead into, and what names each schema in them: the document's own URI,
/// and every `$id` (an absolute URI, or a plain-name fragment such as `#foo`, the location-independent form).
/// It also knows the base URI in force at each schema, which is what relative references resolve against.
///
/// Draft-07's rules: an `$id` resolves against the base URI of the schema around it; next to a `$ref`, `$id`
/// is ignored (and does not change the base); only schemas count, so an `$id` inside an `enum` value, a
/// `const` or an unknown keyword names nothing.
struct SchemaResources {
    /// A place in a document.
    struct Location: Hashable, Sendable {
        /// The document's URI as text ("" for a document with none).
        let document: String
        let pointer: JSONPointer

        /// The key of the schema there: `document#/pointer` (`#/…` for a document with no URI).
        var key: String { document + "#" + pointer.description }
    }

    private(set) var documents: [String: JSONValue] = [:]
    /// Absolute URIs (without fragment, or with a plain-name fragment) to the schema they name.
    private(set) var identified: [String: Location] = [:]
    /// The base URI around each schema (before its own `$id`), by its key.
    private(set) var bases: [String: URIReference] = [:]

    /// `root` (with the URI `rootURI`, "" when it has none) and `others` (by URI), each indexed.
    init(root: JSONValue, rootURI: String = "", others: [String: JSONValue] = [:]) {
        add(root, uri: rootURI)
        for (uri, document) in others.sorted(by: { $0.key < $1.key }) where documents[uri] == nil {
            add(document, uri: uri)
        }
    }

    private mutating func add(_ document: JSONValue, uri: String) {
        let base = URIReference(parsing: uri).withoutFragment
        documents[base.text] = document
        identified[base.text] = Location(document: base.text, pointer: .root)
        scan(document, at: Location(document: base.text, pointer: .root), base: base)
    }

    /// The base URI a schema object establishes for itself and its subschemas: its `$id` resolved against the
    /// base around it, unless it has a `$ref` (whose siblings draft-07 ignores).
    static func base(of object: JSONObject, within outer: URIReference) -> URIReference {
        guard object.member(named: "$ref") == nil, case .string(let id)? = object.member(named: "$id") else { return outer }
        return URIReference(parsing: id).resolved(against: outer).withoutFragment
    }

    /// The base URI around the schema at `location` (its own `$id` not applied); the document's URI when the
    /// location is not a schema the scan saw.
    func base(at location: Location) -> URIReference {
        bases[location.key] ?? URIReference(parsing: location.document)
    }

    /// The value at `location`.
    func value(at location: Location) -> JSONValue? {
        documents[location.document].flatMap { location.pointer.resolve(in: $0) }
    }

    /// Where the reference `text`, written in a schema whose base URI is `base`, leads; nil when no known
    /// schema has that name, or its fragment is neither a JSON Pointer nor a known plain name.
    func resolve(_ text: String, against base: URIReference) -> Resolution {
        let target = URIReference(parsing: text).resolved(against: base)
        let resource = target.withoutFragment.text
        let fragment = target.fragment ?? ""
        if !fragment.isEmpty, !fragment.hasPrefix("/") {
            guard let named = identified[resource + "#" + fragment] else { return .unknownName(resource + "#" + fragment) }
            return .found(named)
        }
        guard let start = identified[resource] else { return .unknownDocument(resource) }
        guard let decoded = Self.percentDecoded(Substring(fragment)), let pointer = JSONPointer(parsing: decoded) else {
            return .badPointer
        }
        return .found(Location(document: start.document, pointer: JSONPointer(tokens: start.pointer.tokens + pointer.tokens)))
    }

    enum Resolution {
        case found(Location)
        /// No document or schema has this URI.
        case unknownDocument(String)
        /// No schema has this plain-name fragment.
        case unknownName(String)
        /// The fragment is not a JSON Pointer (or has a bad percent-escape).
        case badPointer
    }

    // MARK: Scanning

    /// The keywords whose value is a schema, a list of schemas, or an object of schemas.
    private static let schemaKeywords: Set<String> = [
        "additionalItems", "additionalProperties", "contains", "propertyNames", "if", "then", "else", "not", "items",
    ]
    private static let schemaListKeywords: Set<String> = ["allOf", "anyOf", "oneOf", "items"]
    private static let schemaMapKeywords: Set<String> = ["properties", "patternProperties", "definitions", "dependencies"]

    private mutating func scan(_ value: JSONValue, at location: Location, base outer: URIReference) {
        bases[location.key] = outer
        guard case .object(let object) = value else { return }
        let base = Self.base(of: object, within: outer)
        if object.member(named: "$ref") == nil, case .string(let id)? = object.member(named: "$id") {
            let named = URIReference(parsing: id).resolved(against: outer)
            identified[named.withoutFragment.text] = identified[named.withoutFragment.text] ?? location
            if let fragment = named.fragment, !fragment.isEmpty, !fragment.hasPrefix("/") {
                identified[named.withoutFragment.text + "#" + fragment] = location
            }
        }
        for member in object.effectiveMembers {
            let here = Location(document: location.document, pointer: location.pointer.appending(member.key))
            switch member.value {
            case .object, .bool:
                if Self.schemaKeywords.contains(member.key) {
                    scan(member.value, at: here, base: base)
                } else if Self.schemaMapKeywords.contains(member.key), case .object(let map) = member.value {
                    for entry in map.effectiveMembers {
                        scan(entry.value, at: Location(document: here.document, pointer: here.pointer.appending(entry.key)), base: base)
                    }
                }
            case .array(let elements) where Self.schemaListKeywords.contains(member.key):
                for (index, element) in elements.enumerated() {
                    scan(element, at: Location(document: here.document, pointer: here.pointer.appending(index)), base: base)
                }
            default:
                break
            }
        }
    }

    /// `%XX` escapes in a URI fragment decoded as UTF-8; nil for a malformed escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(HexDigit.value), let low = utf8.next().flatMap(HexDigit.value) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
