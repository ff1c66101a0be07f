import DepotJSON
import DepotServer

/// A config file's members read by type; an error names the file, the key and what it holds instead. Values
/// are taken as given (`DaemonSettings` checks them), except integers too large to hold, out of any range.
struct ConfigurationMembers {
    let object: JSONObject
    /// The config file, for messages.
    let path: String

    func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let member = object[key] else { return nil }
        guard case .string(let text) = member else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be a string, not \(member.typeName)")
        }
        return text
    }

    func integer(_ key: String, _ setting: IntegerSetting) throws(ConfigurationError) -> Int? {
        guard let member = object[key] else { return nil }
        guard let number = member.numberValue, number.isInteger else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be an integer, not \(member.jsonText)")
        }
        guard let integer = number.intValue else {
            throw setting.outOfRange(number.literal, from: .configFile(path: path, key: key))
        }
        return integer
    }

    func seconds(_ key: String) throws(ConfigurationError) -> Double? {
        guard let member = object[key] else { return nil }
        guard let number = member.numberValue else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be a number of seconds, such as 2.5, not \(member.jsonText)")
        }
        return number.doubleValue
    }

    /// A number, such as a fraction; `example` shows one in the error.
    func number(_ key: String, example: String) throws(ConfigurationError) -> Double? {
        guard let member = object[key] else { return nil }
        guard let number = member.numberValue else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be a number, such as \(example), not \(member.jsonText)")
        }
        return number.doubleValue
    }

    /// A number of seconds, or the string `auto`.
    func refreshInterval(_ key: String) throws(ConfigurationError) -> RefreshIntervalText? {
        guard let member = object[key] else { return nil }
        if let number = member.numberValue { return .seconds(number.doubleValue) }
        if case .string(let text) = member { return .text(text) }
        throw ConfigurationError("config file \(path): \"\(key)\" must be a number of seconds or \"auto\", not \(member.jsonText)")
    }

    func flag(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let member = object[key] else { return nil }
        guard case .bool(let flag) = member else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be true or false, not \(member.jsonText)")
        }
        return flag
    }

    /// An object of header names and string values, in order.
    /// `{"read": [principal…], "write": […], "admin": […]}`: each level optional, each a list of strings.
    func access(_ key: String) throws(ConfigurationError) -> [String: [String]] {
        guard let member = object[key] else { return [:] }
        let example = #"{"write": ["group:depot"], "admin": ["user:root"]}"#
        guard case .object(let levels) = member else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be an object of access levels, such as \(example), not \(member.typeName)")
        }
        var access: [String: [String]] = [:]
        for entry in levels {
            guard ["read", "write", "admin"].contains(entry.key) || AccessPolicy.grantableMethods.contains(entry.key) else {
                throw ConfigurationError(
                    "config file \(path): \"\(key)\": \"\(entry.key)\" is not an access level nor a method granted alone; the levels are read, write and admin, the methods remove, put, patch and apply"
                )
            }
            guard case .array(let elements) = entry.value, elements.allSatisfy({ $0.stringValue != nil }) else {
                throw ConfigurationError("config file \(path): \"\(key)\": \"\(entry.key)\" must be a list of principals such as [\"group:depot\"]")
            }
            access[entry.key] = elements.compactMap(\.stringValue)
        }
        return access
    }

    /// An array of strings; nil when the key is absent.
    func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let member = object[key] else { return nil }
        guard case .array(let elements) = member else {
            throw ConfigurationError("config file \(path): \"\(key)\" must be an array of strings, not \(member.typeName)")
        }
        return try elements.map { element throws(ConfigurationError) in
            guard case .string(let text) = element else {
                throw ConfigurationError("config file \(path): \"\(key)\" must hold strings only, not \(element.typeName)")
            }
            return text
        }
    }

    func namedStrings(_ key: String) throws(ConfigurationError) -> [ConfigurationFile.NamedString] {
        guard let member = object[key] else { return [] }
        guard case .object(let members) = member else {
            throw ConfigurationError(
                "config file \(path): \"\(key)\" must be an object of header names and strings, such as {\"Accept\": \"application/json\"}, not \(member.typeName)"
            )
        }
        var named: [ConfigurationFile.NamedString] = []
        for entry in members {
            // Not the value: under "headers" it may be a secret someone put there anyway.
            guard case .string(let text) = entry.value else {
                throw ConfigurationError("config file \(path): \"\(key)\": \"\(entry.key)\" must be a string, not \(entry.value.typeName)")
            }
            named.append(ConfigurationFile.NamedString(name: entry.key, value: text))
        }
        return named
    }
}
