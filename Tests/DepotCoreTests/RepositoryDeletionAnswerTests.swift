import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

/// What the repository publishes after a delete, for each thing a source can say about what it holds then.
@Suite("Repository: a removal publishes what the source said, reading it again only when it asks", .timeLimit(.minutes(1)))
struct RepositoryDeletionAnswerTests {
    @Test("remaining: the list the source gave with its delete is published as the source's, with no second read")
    func remaining() async throws {
        let fixture = Fixture()
        fixture.source.deletionAnswer = .remaining
        _ = try await fixture.loaded()
        let removed = try await fixture.repository.remove(id: "2").result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,3]"])
        #expect(fixture.source.calls.value.fetchesStarted == 1, "the load's fetch only")
        #expect(removed.state.provenance?.origin == .source)
    }

    @Test("remaining, optimistic: the guess at once, then the source's list")
    func remainingOptimistic() async throws {
        let fixture = Fixture()
        fixture.source.deletionAnswer = .remaining
        _ = try await fixture.loaded()
        // Someone else adds an item to the source between the load and the removal: the source's list shows it.
        fixture.source.items.append(["id": 4, "name": "item 4"])
        _ = try await fixture.repository.remove(id: "1", optimistic: true).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[2,3]", "success[2,3,4]"])
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("removed: the items held without the id, derived in memory, with no read")
    func removed() async throws {
        let fixture = Fixture()
        fixture.source.deletionAnswer = .removed
        fixture.source.version = SourceVersion(etag: #""v1""#)
        _ = try await fixture.loaded()
        let removed = try await fixture.repository.remove(id: "3").result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,2]"])
        #expect(fixture.source.calls.value.fetchesStarted == 1)
        #expect(removed.state.provenance?.origin == .memory)
        #expect(fixture.repository.sourceVersion == nil, "the version described the list with the item")
    }

    @Test("relist: the source is read again after its delete (the test source's default, as HTTP)")
    func relist() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        _ = try await fixture.repository.remove(id: "2").result.get()
        #expect(fixture.source.calls.value.fetchesStarted == 2)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,3]"])
    }

    @Test("isRemoval(of:from:): the same items in the same order, less exactly that one")
    func isRemoval() throws {
        let all = try ItemCollection(values: [["id": 1], ["id": 2], ["id": 3]], idField: "id")
        #expect(try ItemCollection(values: [["id": 1], ["id": 3]], idField: "id").isRemoval(of: "2", from: all))
        #expect(try ItemCollection(values: [["id": 2], ["id": 3]], idField: "id").isRemoval(of: "1", from: all))
        #expect(try ItemCollection(values: [["id": 1], ["id": 2]], idField: "id").isRemoval(of: "3", from: all))
        #expect(!(try ItemCollection(values: [["id": 3], ["id": 1]], idField: "id").isRemoval(of: "2", from: all)), "reordered")
        #expect(!(try ItemCollection(values: [["id": 1], ["id": 3, "x": true]], idField: "id").isRemoval(of: "2", from: all)), "changed")
        #expect(!(try ItemCollection(values: [["id": 1], ["id": 2]], idField: "id").isRemoval(of: "9", from: all)), "no such id")
        #expect(!(try ItemCollection(values: [["id": 1]], idField: "id").isRemoval(of: "2", from: all)), "one more gone")
    }
}
