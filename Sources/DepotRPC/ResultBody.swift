public import DepotJSON
public import NIOCore

/// The JSON of a result or of an error's data: either a value to encode, or bytes encoded already —
/// a published state is encoded once and its bytes are shared by every response and notification carrying it.
public enum ResultBody: Sendable {
    case value(JSONValue)
    /// Compact JSON text, without a newline.
    case encoded(ByteBuffer)
}
