import DepotJSON

/// Where one keyword's value is compiled: the keyword, its value, its location, and the base URI and depth its
/// subschemas compile at.
struct KeywordSite {
    let keyword: String
    let value: JSONValue
    /// The keyword's location (`#/…/keyword`).
    let here: String
    let base: URIReference
    let depth: Int
}

/// Parsing each draft-07 keyword the validator checks, by family. Each returns what is wrong with the value when
/// it is not what draft-07 requires, and nil when the keyword is stored in `keywords`.
extension SchemaCompiler {
    mutating func parse(
        _ keyword: String, _ value: JSONValue, into keywords: inout SchemaKeywords, location: String, base: URIReference, depth: Int
    ) -> String? {
        let site = KeywordSite(keyword: keyword, value: value, here: Self.child(location, keyword), base: base, depth: depth)
        switch keyword {
        case "type", "enum", "const":
            return Self.parseValueKeyword(site, into: &keywords)
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
            return Self.parseBound(site, into: &keywords)
        case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
            return Self.parseCount(site, into: &keywords)
        case "pattern":
            guard let source = value.stringValue else { return "must be a regular expression (a string), found \(Wording.brief(value))" }
            do {
                keywords.pattern = try SchemaPattern(source)
            } catch {
                return "is not a regular expression: \(error)"
            }
            return nil
        case "items", "additionalItems", "uniqueItems", "contains":
            return parseArrayKeyword(site, into: &keywords)
        case "required", "properties", "additionalProperties", "propertyNames":
            return parseObjectKeyword(site, into: &keywords)
        case "patternProperties":
            return parsePatternProperties(site, into: &keywords)
        case "dependencies":
            return parseDependencies(site, into: &keywords)
        case "allOf", "anyOf", "oneOf", "not", "if", "then", "else":
            return parseComposition(site, into: &keywords)
        default:
            preconditionFailure("\(keyword) is in SchemaVocabulary.implemented but SchemaCompiler does not parse it")
        }
    }

    private mutating func subschema(_ value: JSONValue, at location: String, _ site: KeywordSite) -> SchemaNode {
        node(value, location: location, base: site.base, depth: site.depth + 1)
    }

    // MARK: Families

    /// `type`, `enum`, `const`.
    private static func parseValueKeyword(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        let value = site.value
        switch site.keyword {
        case "type":
            let names = value.arrayValue ?? [value]
            let types = names.compactMap { $0.stringValue.flatMap(SchemaType.init(rawValue:)) }
            guard types.count == names.count, !types.isEmpty, Set(types).count == types.count else {
                let allowed = SchemaType.allCases.map(\.rawValue).joined(separator: ", ")
                return "must be a type name (\(allowed)) or an array of different ones, found \(Wording.brief(value))"
            }
            keywords.types = types
        case "enum":
            guard let elements = value.arrayValue else { return "must be an array of values, found \(Wording.brief(value))" }
            keywords.enumValues = elements
        default:
            keywords.constValue = value
        }
        return nil
    }

    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`.
    private static func parseBound(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        guard let number = site.value.numberValue else {
            let draft4 = site.value.boolValue != nil && site.keyword.hasPrefix("exclusive") ? " (the boolean form is draft-04's)" : ""
            return "must be a number, found \(Wording.brief(site.value))\(draft4)"
        }
        let bound = SchemaKeywords.Bound(number)
        switch site.keyword {
        case "multipleOf":
            guard !bound.value.isZero, !bound.value.isNegative else {
                return "must be a number greater than 0, found \(Wording.brief(site.value))"
            }
            keywords.multipleOf = bound
        case "minimum": keywords.minimum = bound
        case "maximum": keywords.maximum = bound
        case "exclusiveMinimum": keywords.exclusiveMinimum = bound
        default: keywords.exclusiveMaximum = bound
        }
        return nil
    }

    /// The length and count bounds: `minLength` … `maxProperties`.
    private static func parseCount(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        guard let count = count(site.value) else {
            return "must be a non-negative integer, found \(Wording.brief(site.value))"
        }
        switch site.keyword {
        case "minLength": keywords.minLength = count
        case "maxLength": keywords.maxLength = count
        case "minItems": keywords.minItems = count
        case "maxItems": keywords.maxItems = count
        case "minProperties": keywords.minProperties = count
        default: keywords.maxProperties = count
        }
        return nil
    }

    /// A non-negative whole number (`2`, or `2.0` as draft-07 allows); one too large for `Int` counts as
    /// `Int.max`, which no length reaches.
    private static func count(_ value: JSONValue) -> Int? {
        guard let number = value.numberValue else { return nil }
        return DecimalNumber(number).integerValue
    }

    /// `items`, `additionalItems`, `uniqueItems`, `contains`.
    private mutating func parseArrayKeyword(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        let value = site.value
        switch site.keyword {
        case "items":
            if let elements = value.arrayValue {
                keywords.items = .tuple(elements.enumerated().map { subschema($1, at: Self.child(site.here, String($0)), site) })
            } else {
                keywords.items = .all(subschema(value, at: site.here, site))
            }
        case "additionalItems":
            keywords.additionalItems = subschema(value, at: site.here, site)
        case "contains":
            keywords.contains = subschema(value, at: site.here, site)
        default:
            guard let flag = value.boolValue else { return "must be true or false, found \(Wording.brief(value))" }
            keywords.uniqueItems = flag
        }
        return nil
    }

    /// `required`, `properties`, `additionalProperties`, `propertyNames`.
    private mutating func parseObjectKeyword(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        let value = site.value
        switch site.keyword {
        case "required":
            guard let elements = value.arrayValue else {
                return "must be an array of member names, found \(Wording.brief(value))"
            }
            let names = elements.compactMap(\.stringValue)
            guard names.count == elements.count else {
                return "must be an array of member names (strings), found \(Wording.brief(value))"
            }
            keywords.required = names
        case "properties":
            guard let object = value.objectValue else {
                return "must be an object whose members are schemas, found \(Wording.brief(value))"
            }
            keywords.properties = object.effectiveMembers.map { member in
                SchemaKeywords.Property(name: member.key, schema: subschema(member.value, at: Self.child(site.here, member.key), site))
            }
        case "additionalProperties":
            keywords.additionalProperties = subschema(value, at: site.here, site)
        default:
            keywords.propertyNames = subschema(value, at: site.here, site)
        }
        return nil
    }

    private mutating func parsePatternProperties(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        guard let object = site.value.objectValue else {
            return "must be an object whose names are regular expressions and whose members are schemas, found \(Wording.brief(site.value))"
        }
        var entries: [SchemaKeywords.PatternProperty] = []
        for member in object.effectiveMembers {
            guard let pattern = try? SchemaPattern(member.key) else {
                return "has a name that is not a regular expression: \(Wording.quote(member.key))"
            }
            entries.append(
                SchemaKeywords.PatternProperty(pattern: pattern, schema: subschema(member.value, at: Self.child(site.here, member.key), site)))
        }
        keywords.patternProperties = entries
        return nil
    }

    private mutating func parseDependencies(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        guard let object = site.value.objectValue else {
            return "must be an object whose members are schemas or arrays of member names, found \(Wording.brief(site.value))"
        }
        var dependencies: [SchemaKeywords.Dependency] = []
        for member in object.effectiveMembers {
            if case .array(let elements) = member.value {
                let names = elements.compactMap(\.stringValue)
                guard names.count == elements.count else {
                    return "lists member names that are not all strings for \(Wording.quote(member.key))"
                }
                dependencies.append(SchemaKeywords.Dependency(name: member.key, demand: .members(names)))
            } else {
                let schema = subschema(member.value, at: Self.child(site.here, member.key), site)
                dependencies.append(SchemaKeywords.Dependency(name: member.key, demand: .schema(schema)))
            }
        }
        keywords.dependencies = dependencies
        return nil
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`, `else`.
    private mutating func parseComposition(_ site: KeywordSite, into keywords: inout SchemaKeywords) -> String? {
        switch site.keyword {
        case "allOf", "anyOf", "oneOf":
            guard let elements = site.value.arrayValue, !elements.isEmpty else {
                return "must be a non-empty array of schemas, found \(Wording.brief(site.value))"
            }
            let list = elements.enumerated().map { subschema($1, at: Self.child(site.here, String($0)), site) }
            switch site.keyword {
            case "allOf": keywords.allOf = list
            case "anyOf": keywords.anyOf = list
            default: keywords.oneOf = list
            }
        case "not": keywords.not = subschema(site.value, at: site.here, site)
        case "if": keywords.ifSchema = subschema(site.value, at: site.here, site)
        case "then": keywords.thenSchema = subschema(site.value, at: site.here, site)
        default: keywords.elseSchema = subschema(site.value, at: site.here, site)
        }
        return nil
    }
}
