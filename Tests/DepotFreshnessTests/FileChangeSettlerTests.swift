import DepotFreshness
import DepotTestSupport
import Testing

@Suite("FileChangeSettler: bursts settled, never read while written")
struct FileChangeSettlerTests {
    typealias Settler = FileChangeSettler<ManualClock.Instant>

    static func at(_ milliseconds: Int64) -> ManualClock.Instant { ManualClock.at(.milliseconds(milliseconds)) }

    @Test("one change: checked once nothing more came for the settle time")
    func single() {
        var settler = Settler()
        #expect(settler.observed(.written, at: Self.at(0)) == .wait(until: Self.at(100)))
        #expect(settler.action(at: Self.at(99)) == .wait(until: Self.at(100)))
        #expect(settler.action(at: Self.at(100)) == .check)
        settler.checked()
        #expect(settler.action(at: Self.at(500)) == .idle && settler.due == nil)
    }

    @Test("a burst pushes the check back, but never past the longest wait from its first change")
    func burst() {
        var settler = Settler()
        for millisecond in stride(from: Int64(0), through: 950, by: 10) {
            #expect(settler.observed(.written, at: Self.at(millisecond)) == .wait(until: Self.at(min(millisecond + 100, 1000))))
        }
        #expect(settler.action(at: Self.at(1000)) == .check)
    }

    @Test("written in place: no check while it is written, however long; its close starts the settle time")
    func inPlace() {
        var settler = Settler()
        #expect(settler.observed(.writing, at: Self.at(0)) == .idle)
        #expect(settler.action(at: Self.at(60_000)) == .idle, "a slow writer is waited for")
        #expect(settler.observed(.writing, at: Self.at(60_001)) == .idle)
        #expect(settler.observed(.written, at: Self.at(60_002)) == .check, "its first change was more than the longest wait ago")
    }

    @Test("vim's write: renamed away (removed), created again (being written), closed: one check after the close")
    func vim() {
        var settler = Settler()
        #expect(settler.observed(.removed, at: Self.at(0)) == .wait(until: Self.at(100)))
        #expect(settler.observed(.writing, at: Self.at(5)) == .idle, "the new file is being written: not yet")
        #expect(settler.observed(.written, at: Self.at(20)) == .wait(until: Self.at(120)))
        #expect(settler.action(at: Self.at(120)) == .check)
    }

    @Test("a removal, a rename over the file, a lost queue: each settles like a write")
    func others() {
        for change in [FileChange.removed, .replaced, .maybeReplaced, .unknown] {
            var settler = Settler(settle: .milliseconds(50), longest: .milliseconds(500))
            #expect(settler.observed(change, at: Self.at(10)) == .wait(until: Self.at(60)))
        }
    }
}
