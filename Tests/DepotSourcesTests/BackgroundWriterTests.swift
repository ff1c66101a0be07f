import DepotPlatform
import Testing

@testable import DepotSources

#if canImport(Glibc)
import Glibc
#endif

@Suite("BackgroundWriter: the file source's rewrites on a thread that yields to the event loops")
struct BackgroundWriterTests {
    @Test("a job runs at the writer's nice value, on its thread only: the caller's stays as it was")
    func niceness() async {
        let writer = BackgroundWriter()
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let inside = await writer.run(usingBuffer: { _ in getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) })
        #expect(inside == BackgroundWriter.niceness)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
    }

    @Test("jobs from many tasks each run once and hand back their own result")
    func manyJobs() async {
        let writer = BackgroundWriter()
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for number in 0..<200 {
                group.addTask { (number, await writer.run(usingBuffer: { _ in number * 2 })) }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.value == $0.key * 2 })
    }

    @Test("a pool stopped runs the work still handed to it on the caller's thread, at the caller's nice value")
    func stoppedPool() async {
        let pool = BlockingPool(label: "depot-test", niceness: BackgroundWriter.niceness)
        #expect(await pool.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) } == BackgroundWriter.niceness)
        await pool.shutDown()
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(await pool.run { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) } == before)
    }
}
