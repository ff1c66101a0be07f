package import DepotJSON

/// Why an OpenRPC document cannot be used: it is not JSON, or a part the validator needs is missing or has
/// the wrong shape. Says where (a `#/…` pointer) and what, so the document can be fixed.
package struct OpenRPCDocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: Sendable, Equatable {
        /// The bytes are not JSON.
        case invalidJSON(JSONParseError)
        /// The JSON is not an OpenRPC document as far as methods, params, results and errors go.
        case malformed(String)
    }

    package let reason: Reason
    /// Where in the document the problem is: "#/methods/3/params/0", "#" for the document itself.
    package let location: String

    package init(reason: Reason, location: String) {
        self.reason = reason
        self.location = location
    }

    static func malformed(_ location: String, _ problem: String) -> OpenRPCDocumentError {
        OpenRPCDocumentError(reason: .malformed(problem), location: location)
    }

    package var description: String {
        switch reason {
        case .invalidJSON(let error):
            "the OpenRPC document is not valid JSON: \(error)"
        case .malformed(let problem):
            "the OpenRPC document is not usable: \(location) \(problem)"
        }
    }
}
