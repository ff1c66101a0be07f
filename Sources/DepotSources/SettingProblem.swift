/// Why a setting's value cannot be used and what to write instead, without saying which setting held it,
/// so that the caller can: `--items-path "a..b" has an empty member name; …`. Never quotes a secret.
public struct SettingProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
