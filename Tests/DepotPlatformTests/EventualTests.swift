import DepotPlatform
import DepotTestSupport
import Testing

@Suite("Eventual: a value that arrives once, for every reader")
struct EventualTests {
    @Test("readers waiting before it arrives, and readers after, all get the first value; a second resolve changes nothing")
    func everyReaderGetsTheFirstValue() async throws {
        let eventual = Eventual<Int>()
        let waiting = Condition(0)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    waiting.update { $0 += 1 }
                    return try await eventual.value
                }
            }
            try await withTimeout(.seconds(30), "the readers to start") { await waiting.wait { $0 == 8 } }
            eventual.resolve(7)
            eventual.resolve(8)
            var values: [Int] = []
            for try await value in group { values.append(value) }
            #expect(values == Array(repeating: 7, count: 8))
        }
        #expect(try await eventual.value == 7, "a reader after it arrived")
    }
}
