import DepotCore
import DepotJSON
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
        case .changeFailed: changeFailed
        case .notFound: notFound
        case .storageFailed: storageFailed
        case .conflict: conflict
        case .invalidChange: RPCError.invalidParamsCode
        case .invalidItem: invalidItem
        case .outcomeUnknown: outcomeUnknown
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

    /// A write (`put`, `patch`, `apply`, a conditional `remove`) that failed: its kind's code, its message, and as data
    /// `{"state"}` with, as the failure has them, the change's `index` (a batch), the item there now and its `etag`
    /// (a conflict: null when there is none), and the schema's `violations`.
    static func writeFailed(_ error: RepositoryError, encodedState: ByteBuffer, batch: Bool) -> RPCError {
        var data = ByteBuffer()
        data.writeStaticString("{\"state\":")
        var state = encodedState
        data.writeBuffer(&state)
        if let change = error.change {
            if batch {
                data.writeStaticString(",\"index\":")
                data.writeString(String(change.index))
            }
            switch change.current {
            case .item(let item)?:
                data.writeStaticString(",\"item\":")
                data.writeBytes(item.json)
                data.writeStaticString(",\"etag\":")
                JSONWriter.writeString(item.etag, to: &data)
            case .absent?:
                data.writeStaticString(",\"item\":null,\"etag\":null")
            case .unknown?, nil:
                break
            }
            if !change.violations.isEmpty {
                let violations = JSONValue.array(
                    change.violations.map { ["pointer": .string($0.pointer), "keyword": .string($0.keyword), "message": .string($0.message)] })
                data.writeStaticString(",\"violations\":")
                data.writeBytes(violations.jsonBytes)
            }
        }
        data.writeStaticString("}")
        return RPCError(code: DepotErrorCode.code(for: error.kind), message: error.message, data: .encoded(data))
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
