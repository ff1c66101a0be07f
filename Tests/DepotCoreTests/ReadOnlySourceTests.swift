import DepotCore
import DepotJSON
import DepotTestSupport
import Logging
import Testing

/// A source that only lists, as a new source starts: no `WritableSource`, so every write is refused saying so.
private struct ListingSource: Source {
    var description: String { "listing:test" }

    func fetchItems() async throws -> [JSONValue] {
        try (1...3).map { try JSONParser.parse(#"{"id": \#($0)}"#) }
    }
}

@Suite("Repository on a source that is not a WritableSource", .timeLimit(.minutes(1)))
struct ReadOnlySourceTests {
    @Test(
        "a put, optimistic or not, and a removal are refused as the source's refusal, saying it cannot be written; nothing is shown",
        arguments: [false, true])
    func writesRefused(optimistic: Bool) async throws {
        let repository = Repository(source: ListingSource(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            .running()
        let loaded = try await repository.load().result.get()
        for change in [ItemChange.put("4", ["name": "four"]), .remove("1")] {
            let result = await repository.apply([change], optimistic: optimistic).result
            guard case .failure(let error) = result else {
                Issue.record("the write was made: \(result)")
                continue
            }
            #expect(error.kind == .changeFailed)
            #expect(error.message.contains("listing:test cannot be written"), "\(error.message)")
            #expect(repository.current.state.items?.items.map(\.id) == ["1", "2", "3"])
        }
        #expect(repository.current.seq == loaded.seq, "nothing was shown, nothing published")
    }
}
