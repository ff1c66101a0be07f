/// Told of the fan-out's encodings of states: a seam for whoever measures them (how many, how large, on which thread)
/// or holds one back to see what subscribers receive meanwhile. depotd gives none, and then nothing is counted or
/// called: `ServerConfiguration.encodingObserver` is nil.
public protocol EncodingObserver: Sendable {
    /// A form that holds a state's items was encoded; `items` is how many it holds. Called on the thread that encoded
    /// it (an event loop, or the CPU pool).
    func encoded(items: Int)

    /// An encoding on the CPU pool is about to start, outside every lock; it waits until this returns.
    func startingOffLoop()
}
