import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// Where the database password comes from, if anywhere: a file (mode 0600, or a systemd credential, which
/// `LoadCredential=` puts in `$CREDENTIALS_DIRECTORY`). Read at every connection attempt, so a rotated password is
/// picked up by the next reconnect. Never in the URI, a flag's value, the environment or a log.
package enum PostgresPassword: Sendable, Equatable {
    /// No password: trust, peer or certificate authentication.
    case none
    /// The first line of this file, without its line ending.
    case file(path: String)

    /// The credential name depotd looks for in `$CREDENTIALS_DIRECTORY`.
    package static let credentialName = "postgres-password"

    /// The password from `file` when given, else the systemd credential when there is one, else none.
    package static func resolve(file: String?, environment: [String: String]) -> PostgresPassword {
        if let file { return .file(path: file) }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + credentialName
            if access(path, F_OK) == 0 { return .file(path: path) }
        }
        return .none
    }

    /// The password now, or nil.
    package func read() throws -> String? {
        guard case .file(let path) = self else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try Files.readAll(path)
        } catch {
            throw PasswordFileError(message: "cannot read the PostgreSQL password file \(path): \(error)")
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard !line.isEmpty else {
            throw PasswordFileError(message: "the PostgreSQL password file \(path) is empty; write the password on its first line")
        }
        return String(decoding: line, as: UTF8.self)
    }

    package struct PasswordFileError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}
