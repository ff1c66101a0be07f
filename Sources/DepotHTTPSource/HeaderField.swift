package import DepotSources

/// A request header whose value is in the config file (`"headers"`): for what is not secret, such as
/// `Accept`. Values are still never logged.
package struct HeaderField: Sendable, Equatable {
    package let name: String
    package let value: String

    /// Checks that `name` is an HTTP token and `value` one line; the problem names neither value.
    package init(name: String, value: String) throws(SettingProblem) {
        try Self.check(name: name)
        try Self.check(value: value)
        self.name = name
        self.value = value
    }

    /// `name` is a token: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func check(name: String) throws(SettingProblem) {
        let allowed = "!#$%&'*+-.^_`|~"
        guard !name.isEmpty,
            name.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || allowed.unicodeScalars.contains($0))
            })
        else {
            throw SettingProblem("\"\(name)\" is not a header name; use letters, digits and -, as in Authorization")
        }
    }

    /// `value` is one line of visible characters, spaces and tabs. The message never quotes the value.
    static func check(value: String) throws(SettingProblem) {
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw SettingProblem("has a line break or control character in its value; a header value must be one line")
        }
    }
}
