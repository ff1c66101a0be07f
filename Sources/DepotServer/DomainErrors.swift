import DepotCore
import DepotPipeline
import DepotRPC
import DepotWire
import NIOCore

// The domain's errors as the protocol's: the wire (DepotWire) knows the codes, the server knows the domain, so the
// mapping between them is here, every case named.

extension DepotErrorCode {
    /// The code the protocol gives a domain error's kind: every kind named, so a new one does not compile until it
    /// has a code here.
    static func code(for kind: StateError.Kind) -> Int {
        switch kind {
        case .loadFailed: loadFailed
        case .removeFailed: removeFailed
        case .notFound: notFound
        case .storageFailed: storageFailed
        // A mutation cancelled before its turn, or at shutdown: its caller has gone, so no answer carries this code.
        case .cancelled: RPCError.internalErrorCode
        }
    }
}

extension RPCError {
    /// A mutation that failed: its kind's code, its message, and the state it left behind (`encodedState`) as data.
    static func mutationFailed(_ error: RepositoryError, encodedState: ByteBuffer) -> RPCError {
        RPCError(code: DepotErrorCode.code(for: error.kind), message: error.message, data: .encoded(encodedState))
    }

    /// A named pipeline could not be changed: read-only (configured), unknown, or not stored.
    static func pipelineLibrary(_ error: PipelineLibraryError) -> RPCError {
        switch error {
        case .readOnly: RPCError(code: DepotErrorCode.readOnly, message: error.description)
        case .notFound: RPCError(code: DepotErrorCode.notFound, message: error.description)
        case .storage: RPCError(code: DepotErrorCode.storageFailed, message: error.description)
        }
    }
}
