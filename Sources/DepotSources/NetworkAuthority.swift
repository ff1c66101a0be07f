/// The host and port of a URL's authority (`HOST`, `HOST:PORT`, `[IPv6]:PORT`), split but not yet checked:
/// shared by the http(s):// and postgres:// addresses.
struct NetworkAuthority {
    /// The host as written; an IPv6 address keeps its brackets when `keepBrackets`.
    var host: Substring
    var port: Substring?

    init(splitting authority: Substring, keepBrackets: Bool) throws(SettingProblem) {
        host = authority
        port = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw SettingProblem("has an IPv6 address without its closing \"]\"") }
            host = keepBrackets ? authority[...close] : authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw SettingProblem("has something other than a port after its IPv6 address") }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
    }

    /// `text` as a port number, 1 to 65535.
    static func port(_ text: Substring) throws(SettingProblem) -> Int {
        guard let number = Int(text), text.allSatisfy(\.isASCII), (1...65535).contains(number) else {
            throw SettingProblem("has the port \"\(text)\"; a port is a number from 1 to 65535")
        }
        return number
    }
}
