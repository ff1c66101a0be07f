import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

@Suite("Repository: conditional load")
struct RepositoryConditionalLoadTests {
    static let v1 = SourceVersion(etag: #""v1""#, lastModified: nil)!
    static let v2 = SourceVersion(etag: #""v2""#, lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")!

    static func versioned() -> Fixture {
        let source = TestSource(count: 3)
        source.version = v1
        return Fixture(source: source)
    }

    @Test("a source without versions is asked unconditionally every time, as before")
    func noVersions() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        _ = try await fixture.loaded()
        #expect(fixture.source.calls.value.versionsAsked == [nil, nil])
        #expect(fixture.repository.sourceVersion == nil)
    }

    @Test("the second load asks about the version of the first; unchanged publishes success with the same items")
    func unchanged() async throws {
        let fixture = Self.versioned()
        let first = try await fixture.loaded()
        #expect(fixture.repository.sourceVersion == Self.v1)
        let second = try await fixture.loaded()
        #expect(fixture.source.calls.value.versionsAsked == [nil, Self.v1])
        #expect(fixture.source.calls.value.unchangedAnswers == 1)
        #expect(fixture.trace == ["idle", "loading", "success[1,2,3]", "loading", "success[1,2,3]"])
        #expect(second.state.items == first.state.items, "the same items")
        #expect(second.state.provenance?.origin == .source)
        #expect(fixture.seqsAreConsecutive)
        #expect(fixture.repository.sourceVersion == Self.v1)
    }

    @Test("a changed source gives the new items and its new version")
    func changed() async throws {
        let fixture = Self.versioned()
        _ = try await fixture.loaded()
        fixture.source.items = [["id": 9]]
        fixture.source.version = Self.v2
        let published = try await fixture.loaded()
        #expect(Fixture.ids(published.state) == ["9"])
        #expect(fixture.repository.sourceVersion == Self.v2)
        #expect(fixture.source.calls.value.versionsAsked == [nil, Self.v1])
    }

    @Test("with no items in memory the load is unconditional: after a wipe, and after a failure")
    func noItemsNoCondition() async throws {
        let fixture = Self.versioned()
        _ = try await fixture.loaded()
        _ = try await fixture.repository.wipe().result.get()
        #expect(fixture.repository.sourceVersion == nil)
        _ = try await fixture.loaded()
        fixture.source.failNextFetch()
        _ = await fixture.repository.load().result
        #expect(fixture.repository.sourceVersion == nil)
        let published = try await fixture.loaded()
        #expect(Fixture.ids(published.state) == ["1", "2", "3"])
        #expect(fixture.source.calls.value.versionsAsked == [nil, nil, Self.v1, nil])
        #expect(fixture.source.calls.value.unchangedAnswers == 0)
    }

    @Test("a removal refetches unconditionally and keeps the version of what it got")
    func removal() async throws {
        let fixture = Self.versioned()
        _ = try await fixture.loaded()
        fixture.source.version = Self.v2
        _ = try await fixture.repository.remove(id: "2").result.get()
        #expect(fixture.repository.sourceVersion == Self.v2)
        let published = try await fixture.loaded()
        #expect(Fixture.ids(published.state) == ["1", "3"])
        #expect(fixture.source.calls.value.versionsAsked == [nil, nil, Self.v2])
        #expect(fixture.source.calls.value.unchangedAnswers == 1)
    }

    @Test("a new source starts without a version, even with the old source's items in memory")
    func replaceSource() async throws {
        let fixture = Self.versioned()
        _ = try await fixture.loaded()
        let other = TestSource(count: 2)
        other.version = Self.v1
        _ = try await fixture.repository.replaceSource(other, idField: "id").result.get()
        #expect(other.calls.value.versionsAsked == [nil])
        #expect(Fixture.ids(fixture.repository.current.state) == ["1", "2"])
    }
}
