import DepotCore
import DepotJSON
import DepotTestSupport
import Testing

/// A failed fetch has one meaning — its answer could not be used: the source threw, or gave no collection — so `stats`'
/// failed fetches, the health record's failures in a row and the log's "after N failed attempts" agree.
@Suite("Repository: failed fetches, counted once, one meaning", .timeLimit(.minutes(1)))
struct FetchFailureCountTests {
    @Test("an answer that is not a collection and a source that throws are both failed fetches, in the call counts and the health record")
    func unusableAnswerIsAFailedFetch() async throws {
        let fixture = Fixture()
        _ = try await fixture.loaded()
        fixture.source.items = [try JSONParser.parse(#"{"name": "no id"}"#)]
        _ = await fixture.repository.load().result
        fixture.source.failNextFetch()
        _ = await fixture.repository.load().result
        var calls = fixture.repository.sourceCallStatistics.fetches
        #expect(calls.count == 3)
        #expect(calls.failures == 2, "the unusable answer counts as a failure, as the health record counts it")
        #expect(fixture.repository.sourceHealth.consecutiveFailures == 2)

        fixture.source.items = [try JSONParser.parse(#"{"id": 1}"#)]
        _ = try await fixture.repository.load().result.get()
        calls = fixture.repository.sourceCallStatistics.fetches
        #expect((calls.count, calls.failures) == (4, 2))
        #expect(fixture.repository.sourceHealth.consecutiveFailures == 0)
    }
}
