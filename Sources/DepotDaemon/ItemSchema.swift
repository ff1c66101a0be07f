public import DepotCore
public import DepotJSON
import DepotPlatform
import DepotSchema

/// The item schema (`--item-schema`, `itemSchema`): a JSON Schema (draft 7) file every item a write leaves must fit,
/// checked before anything is sent to the source. Read and compiled once, when the settings are; a schema that uses a
/// keyword the validator cannot apply is refused then, rather than let items through that it would not check.
public struct ItemSchema: ItemValidator, Equatable {
    /// The file it was read from.
    public let path: String
    /// The schema as written.
    public let json: JSONValue
    private let schema: JSONSchema

    /// Reads and compiles the schema at `path`; `subject` names where the setting came from in errors.
    init(path: String, subject: String) throws(ConfigurationError) {
        let bytes: [UInt8]
        do {
            bytes = try Files.readAll(path)
        } catch {
            throw ConfigurationError("\(subject): \(error)")
        }
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ConfigurationError("\(subject): \(path) is not valid JSON: \(error) (\(error.position(in: bytes)))")
        }
        guard case .object = json else {
            throw ConfigurationError("\(subject): \(path) must hold a JSON Schema, an object, not \(json.typeNameWithArticle)")
        }
        self.path = path
        schema = JSONSchema(json)
        let unchecked = schema.unsupportedKeywords.filter { keyword in
            switch keyword.reason {
            case .unknown, .ignoredBesideReference: false
            case .notImplemented, .malformed, .unresolvableReference: true
            }
        }
        guard unchecked.isEmpty else {
            throw ConfigurationError(
                "\(subject): \(path) cannot be checked as written: \(unchecked.map(\.description).joined(separator: "; ")); change or remove those keywords"
            )
        }
    }

    public func violations(of item: JSONValue) -> [ItemViolation] {
        schema.validate(item).map { ItemViolation(pointer: $0.path, keyword: $0.keyword, message: $0.message) }
    }

    public static func == (lhs: ItemSchema, rhs: ItemSchema) -> Bool {
        lhs.path == rhs.path && lhs.json == rhs.json
    }
}
