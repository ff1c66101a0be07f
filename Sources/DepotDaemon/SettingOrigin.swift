/// Where a setting's value came from: a flag, an environment variable, or a key of the config file.
/// Errors about a value start with it, so a user knows what to change: `--socket-mode "999" …`,
/// `DEPOT_SOURCE "ftp://…" …`, `config file /etc/depot/depotd.json: "socketMode" "999" …`.
enum SettingOrigin: Sendable, Equatable {
    case flag(String)
    case environment(String)
    case configFile(path: String, key: String)

    /// The origin as the subject of a message: `--socket-mode`, `DEPOT_SOURCE`, `config file X: "socketMode"`.
    var subject: String {
        switch self {
        case .flag(let name): name
        case .environment(let name): name
        case .configFile(let path, let key): "config file \(path): \"\(key)\""
        }
    }

    /// The subject and the value that came from it: `--socket-mode "999"`.
    func quoting(_ value: String) -> String {
        "\(subject) \"\(value)\""
    }
}

/// A setting's value together with where it came from.
struct Sourced<Value> {
    let value: Value
    let origin: SettingOrigin
}
