import DepotCore
import DepotPlatform
package import DepotSources

/// A request header whose value is a secret kept in a file: one the config file names (`"headerFiles"`), or a
/// systemd credential (`"headerCredentials"`, from `LoadCredential=`, read in `$CREDENTIALS_DIRECTORY`).
///
/// The file is read for every request, so a rotated token is used without a reload. Its value goes into the
/// request and nowhere else: messages name the header and the file, never what is in it.
package struct SecretHeader: Sendable, Equatable {
    /// Where the value comes from, for messages.
    package enum Origin: Sendable, Equatable {
        case file
        /// A systemd credential of this name.
        case credential(String)
    }

    package let name: String
    /// The file that holds the value.
    package let path: String
    package let origin: Origin

    package init(name: String, path: String, origin: Origin) throws(SettingProblem) {
        try HeaderField.check(name: name)
        self.name = name
        self.path = path
        self.origin = origin
    }

    /// The value: the file's text without one trailing line break (`\n` or `\r\n`).
    func value() throws(SourceError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try Files.readAll(path)
        } catch {
            throw failure("cannot be read: \(error)")
        }
        var text = bytes[...]
        if text.last == UInt8(ascii: "\n") { text = text.dropLast() }
        if text.last == UInt8(ascii: "\r") { text = text.dropLast() }
        guard let value = String(validating: text, as: UTF8.self) else {
            throw failure("is not UTF-8 text")
        }
        guard !value.isEmpty else {
            throw failure("is empty")
        }
        do {
            try HeaderField.check(value: value)
        } catch {
            throw failure("holds more than one line, or a control character; put the header's value alone on one line")
        }
        return value
    }

    /// `the header Authorization: its file /etc/depot/token is empty; …` — the file, never its content.
    private func failure(_ problem: String) -> SourceError {
        let source =
            switch origin {
            case .file: "its file \(path)"
            case .credential(let credential): "its systemd credential \(credential) (\(path))"
            }
        let remedy =
            switch origin {
            case .file: "write the header's value (such as Bearer TOKEN) into the file, readable by depotd"
            case .credential(let credential): "give the service LoadCredential=\(credential):/path/to/file holding the header's value"
            }
        return SourceError(.unavailable, "cannot send the header \(name): \(source) \(problem); \(remedy)")
    }
}
