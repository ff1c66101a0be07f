import Testing

/// One row of a path-resolution table: an environment and a uid, and the path they must give.
struct PathCase: Sendable, CustomTestStringConvertible {
    let environment: [String: String]
    let userID: UInt32
    let expected: String

    var testDescription: String {
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "uid \(userID) [\(variables)] → \(expected)"
    }
}
