package import DepotPlatform

/// A `SourceLoop` for `body`, shut down after it, as depotd's is after its services.
package func withSourceLoop<Value>(_ body: (SourceLoop) async throws -> Value) async throws -> Value {
    let sourceLoop = SourceLoop()
    do {
        let value = try await body(sourceLoop)
        await sourceLoop.shutDown()
        return value
    } catch {
        await sourceLoop.shutDown()
        throw error
    }
}
