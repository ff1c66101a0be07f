import DepotPlatform
import DepotTestSupport
import Testing

@testable import DepotCore

/// Which submission shares the run of the one before it, and whose work that run does: every kind after every kind,
/// the first queued or under way. The rule a load keeps: whatever it joins, the collection is loaded.
@Suite("MutationQueue: which submissions share a run, and whose work it does")
struct MutationQueueJoiningTests {
    /// The kinds of submission the repository makes.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case load, scheduledRefresh, changeRefresh, removal

        var joining: MutationQueue.Joining {
            switch self {
            case .load, .scheduledRefresh: .queuedOrRunning
            case .changeRefresh: .queued
            case .removal: .never
            }
        }

        var work: MutationQueue.Work { self == .load ? .load : .refresh }
        var testDescription: String { rawValue }
    }

    /// What becomes of the second submission.
    enum Outcome: Equatable {
        /// It queues a run of its own.
        case queues
        /// It shares the first's run, which does the work of the one named.
        case joins(runs: Kind)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let first: Kind
        let underWay: Bool
        let second: Kind
        let outcome: Outcome

        var testDescription: String { "\(second) after \(first) \(underWay ? "under way" : "queued") → \(outcome)" }
    }

    /// The rule, written out: a removal (or any mutation that never joins) shares nothing.
    static let cases: [Case] =
        [
            Case(first: .load, underWay: false, second: .load, outcome: .joins(runs: .load)),
            Case(first: .load, underWay: false, second: .scheduledRefresh, outcome: .joins(runs: .load)),
            Case(first: .load, underWay: false, second: .changeRefresh, outcome: .joins(runs: .load)),
            Case(first: .scheduledRefresh, underWay: false, second: .load, outcome: .joins(runs: .load)),  // taken over
            Case(first: .scheduledRefresh, underWay: false, second: .scheduledRefresh, outcome: .joins(runs: .scheduledRefresh)),
            Case(first: .scheduledRefresh, underWay: false, second: .changeRefresh, outcome: .joins(runs: .scheduledRefresh)),
            Case(first: .changeRefresh, underWay: false, second: .load, outcome: .joins(runs: .load)),  // taken over
            Case(first: .changeRefresh, underWay: false, second: .scheduledRefresh, outcome: .joins(runs: .changeRefresh)),
            Case(first: .changeRefresh, underWay: false, second: .changeRefresh, outcome: .joins(runs: .changeRefresh)),
            Case(first: .load, underWay: true, second: .load, outcome: .joins(runs: .load)),
            Case(first: .load, underWay: true, second: .scheduledRefresh, outcome: .joins(runs: .load)),
            Case(first: .load, underWay: true, second: .changeRefresh, outcome: .queues),
            Case(first: .scheduledRefresh, underWay: true, second: .load, outcome: .queues),  // it may load nothing
            Case(first: .scheduledRefresh, underWay: true, second: .scheduledRefresh, outcome: .joins(runs: .scheduledRefresh)),
            Case(first: .scheduledRefresh, underWay: true, second: .changeRefresh, outcome: .queues),
            Case(first: .changeRefresh, underWay: true, second: .load, outcome: .queues),
            Case(first: .changeRefresh, underWay: true, second: .scheduledRefresh, outcome: .queues),
            Case(first: .changeRefresh, underWay: true, second: .changeRefresh, outcome: .queues),
        ]
        + [false, true].flatMap { underWay in
            Kind.allCases.flatMap { first in
                Kind.allCases.compactMap { second in
                    first == .removal || second == .removal ? Case(first: first, underWay: underWay, second: second, outcome: .queues) : nil
                }
            }
        }

    /// The seq a body of `kind` answers, submitted first or second: says whose work a run did.
    static func seq(of kind: Kind, second: Bool) -> Int {
        (second ? 100 : 0) + (Kind.allCases.firstIndex(of: kind) ?? 0)
    }

    @Test("every kind after every kind, the first queued or under way", arguments: cases)
    func joining(_ testCase: Case) async throws {
        let queue = MutationQueueRunTests.queue()
        let gate = Condition(!testCase.underWay)
        let started = Condition(false)
        let first = queue.submit(
            testCase.first.joining, doing: testCase.first.work, from: Requester(user: 1000, connection: 1),
            MutationQueueRunTests.held(by: gate, started: started, seq: Self.seq(of: testCase.first, second: false)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            if testCase.underWay {
                group.addTask { await queue.run(grace: .seconds(5), on: ManualClock()) }
                try await withTimeout(.seconds(30), "the first to start") { await started.wait { $0 } }
            }
            let secondSeq = Self.seq(of: testCase.second, second: true)
            let second = queue.submit(testCase.second.joining, doing: testCase.second.work, from: Requester(user: 1000, connection: 2)) {
                MutationQueueRunTests.done(secondSeq)
            }
            if !testCase.underWay {
                group.addTask { await queue.run(grace: .seconds(5), on: ManualClock()) }
            }
            gate.update { $0 = true }
            let firstSeq = try await withTimeout { await first.result }.get().seq
            let secondResult = try await withTimeout { await second.result }.get().seq
            switch testCase.outcome {
            case .queues:
                #expect(second !== first)
                #expect(firstSeq == Self.seq(of: testCase.first, second: false))
                #expect(secondResult == secondSeq)
            case .joins(let runs):
                #expect(second === first)
                let runner = runs == testCase.first ? Self.seq(of: runs, second: false) : secondSeq
                #expect(firstSeq == runner && secondResult == runner, "one run, doing \(runs)'s work")
            }
            queue.stop()
            try await group.waitForAll()
        }
    }
}
