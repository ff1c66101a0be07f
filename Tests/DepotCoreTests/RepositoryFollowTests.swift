import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

/// A source with a change log: `follow` applies only what changed and publishes one state (or none), a lost
/// connection marks the items stale, and a removal asks for the changes rather than the whole list.
@Suite("Repository: following a source's change log")
struct RepositoryFollowTests {
    static func revision(_ n: Int64) -> SourceVersion { SourceVersion(revision: n)! }

    static func atRevision(_ n: Int64) async throws -> Fixture {
        let source = TestSource(count: 3)
        source.version = revision(n)
        let fixture = Fixture(source: source)
        _ = try await fixture.loaded()
        return fixture
    }

    @Test("changes are applied to the items held: one new success state at the new revision, no loading")
    func changesApplied() async throws {
        let fixture = try await Self.atRevision(7)
        #expect(fixture.repository.current.state.provenance?.revision == 7)
        fixture.source.answerConditionalFetches(with: [
            .changes(SourceChanges(changed: [["id": 2, "name": "two"], ["id": 0], ["id": 9]], removed: ["1"]), version: Self.revision(10))
        ])
        let published = try await fixture.repository.follow().result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[0,2,3,9]"])
        #expect(published.state.provenance?.revision == 10)
        #expect(published.state.provenance?.origin == .source)
        #expect(fixture.repository.sourceVersion == Self.revision(10))
        #expect(fixture.source.calls.value.versionsAsked == [nil, Self.revision(7)])
        #expect(try published.state.items?.item(id: "2")?.value == ["id": 2, "name": "two"])
    }

    @Test("nothing changed: nothing is published")
    func unchanged() async throws {
        let fixture = try await Self.atRevision(7)
        let before = fixture.repository.current
        let result = try await fixture.repository.follow().result.get()
        #expect(result == before)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]"])
    }

    @Test("with nothing held (after a wipe) follow does nothing: a wipe stays until someone loads")
    func wipedStaysWiped() async throws {
        let fixture = try await Self.atRevision(7)
        _ = try await fixture.repository.wipe().result.get()
        _ = try await fixture.repository.follow().result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "idle"])
        #expect(fixture.source.calls.value.fetchesStarted == 1)
    }

    @Test("a lost connection marks the items stale once; the next follow that reaches the source makes them fresh")
    func staleThenFresh() async throws {
        let fixture = try await Self.atRevision(7)
        _ = try await fixture.repository.markStale(because: "the connection was lost").result.get()
        _ = try await fixture.repository.markStale(because: "still lost").result.get()
        #expect(fixture.states.count == 4, "marked stale once")
        let stale = fixture.repository.current.state
        #expect(stale.provenance?.stale == true)
        #expect(stale.provenance?.staleReason == "the connection was lost")
        #expect(stale.provenance?.revision == 7, "the items are still those of revision 7")
        #expect(stale.items?.count == 3)
        // Unchanged while away: the same items, no longer stale.
        let fresh = try await fixture.repository.follow().result.get()
        #expect(fresh.state.provenance?.stale == false)
        #expect(fresh.state.provenance?.revision == 7)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]", "success[1,2,3]"])
        #expect(fixture.seqsAreConsecutive)
    }

    @Test("a follow whose fetch fails marks the items stale and says why")
    func failingFollow() async throws {
        let fixture = try await Self.atRevision(7)
        fixture.source.failNextFetch()
        let result = await fixture.repository.follow().result
        guard case .failure(let error) = result else {
            Issue.record("a failed fetch must fail the follow")
            return
        }
        #expect(error.state.state.provenance?.stale == true)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,2,3]"])
    }

    @Test("a removal from a source with a change log asks only for the changes since the revision held")
    func removalAsksForChanges() async throws {
        let fixture = try await Self.atRevision(7)
        fixture.source.deletionAnswer = .changed
        // The log shows the removal, and another writer's insert meanwhile.
        fixture.source.answerConditionalFetches(with: [
            .changes(SourceChanges(changed: [["id": 4]], removed: ["2"]), version: Self.revision(9))
        ])
        let published = try await fixture.repository.remove(id: "2", optimistic: true).result.get()
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "success[1,3]", "success[1,3,4]"])
        #expect(published.state.provenance?.revision == 9)
        #expect(fixture.source.calls.value.versionsAsked == [nil, Self.revision(7)])
    }
}
