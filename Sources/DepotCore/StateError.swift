/// The error a failure state carries, and the error a failed mutation answers with:
/// a JSON-RPC server-error code and a message a user can act on.
public struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error code in JSON-RPC's server-error range. A struct, not an enum, so codes can be added
    /// without breaking code that switches over them.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The source could not be read, or what it returned is not a valid collection.
        public static let loadFailed = Code(rawValue: -32001)
        /// The source refused to delete an item.
        public static let removeFailed = Code(rawValue: -32002)
        /// No item has the requested id.
        public static let notFound = Code(rawValue: -32003)

        public var description: String {
            switch self {
            case .loadFailed: "loadFailed"
            case .removeFailed: "removeFailed"
            case .notFound: "notFound"
            default: "error \(rawValue)"
            }
        }
    }

    public let code: Code
    public let message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
