import DepotPlatform
import DepotTestSupport
import Testing

@Suite("ReconnectBackoff: jittered, doubling, capped")
struct ReconnectBackoffTests {
    @Test("the window doubles with each failure up to the cap")
    func windows() {
        let backoff = ReconnectBackoff(firstWindow: .seconds(1), cap: .seconds(30))
        #expect((0...6).map { backoff.window(afterFailures: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(backoff.window(afterFailures: 1000) == .seconds(30))
    }

    @Test("delays are spread over the whole window, never beyond it")
    func spread() {
        let backoff = ReconnectBackoff.standard
        var generator = SplitMix64(seed: 42)
        var delays: [Duration] = []
        for _ in 0..<1000 { delays.append(backoff.delay(afterFailures: 0, using: &generator)) }
        let window = Duration.seconds(1)
        #expect(delays.allSatisfy { delay in delay >= .zero && delay <= window })
        // A fleet reconnecting at once lands in every tenth of the window.
        let tenths = Set(delays.map { delay in Int(delay / (window / 10)) })
        #expect(tenths.count >= 10)
    }
}
