import Testing

@testable import DepotSources

#if canImport(Glibc)
import Glibc
#endif

@Suite("BackgroundWriter: the file source's rewrites on a thread that yields to the event loops")
struct BackgroundWriterTests {
    @Test("a job runs at the writer's nice value, on its thread only: the caller's stays as it was")
    func niceness() async {
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let inside = await BackgroundWriter.shared.run(usingBuffer: { _ in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) })
        #expect(inside == BackgroundWriter.niceness)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
    }

    @Test("jobs from many tasks each run once and hand back their own result")
    func manyJobs() async {
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for number in 0..<200 {
                group.addTask { (number, await BackgroundWriter.shared.run(usingBuffer: { _ in number * 2 })) }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.value == $0.key * 2 })
    }
}
