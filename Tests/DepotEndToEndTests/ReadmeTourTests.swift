import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// README.md's quick tour, run as written against the real depotd and depotctl: each `$ .build/debug/depotctl …`
/// line of its console blocks is run, and what it prints must be what the README shows under it, so the tour
/// cannot drift from the program again. Times and the state directory are the only things that differ.
@Suite("README: the quick tour prints what it shows")
struct ReadmeTourTests {
    /// One command of the tour and the lines the README shows under it (up to a `…` line, when it cuts them short).
    struct Step {
        /// The command as written, after the `$ `.
        var line: String
        var expected: [String]
        var cut: Bool

        /// depotctl's arguments.
        var arguments: [String] {
            line.dropFirst(".build/debug/depotctl ".count).split(separator: " ").map(String.init)
        }
    }

    /// The console blocks of the section "A quick tour", as steps; a block of one command is one step.
    static func tour() throws -> [[Step]] {
        var blocks: [[Step]] = []
        for lines in ReadmeText.codeBlocks("console", in: try ReadmeText.section("## A quick tour\n")) {
            var steps: [Step] = []
            for line in lines {
                if line.hasPrefix("$ .build/debug/depotctl ") {
                    steps.append(Step(line: String(line.dropFirst(2)), expected: [], cut: false))
                } else if line == "…" {
                    steps[steps.count - 1].cut = true
                } else if !steps.isEmpty, !steps[steps.count - 1].cut {
                    steps[steps.count - 1].expected.append(line)
                }
            }
            blocks.append(steps)
        }
        return blocks
    }

    /// `text`'s lines with times and the test's state directory as the README writes them.
    static func normalized(_ text: String, stateDirectory: String) -> [String] {
        let time = #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#
        return text.replacingOccurrences(of: stateDirectory, with: "/home/you/.local/state")
            .replacing(time, with: "TIME")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .reversed().drop { $0.isEmpty }.reversed()
    }

    static func check(_ step: Step, printed: String, stateDirectory: String) {
        let expected = step.expected.map { normalized($0, stateDirectory: stateDirectory).first ?? "" }
        let lines = normalized(printed, stateDirectory: stateDirectory)
        let compared = step.cut ? Array(lines.prefix(expected.count)) : lines
        #expect(compared == expected, "depotctl \(step.arguments.joined(separator: " ")) printed:\n\(printed)")
    }

    @Test("state, get, watch and the two removals print what the README shows")
    func tourAsWritten() async throws {
        let blocks = try Self.tour()
        // The README's tour: state and get; a watch in a third terminal; then the removals.
        try #require(blocks.count == 3 && blocks[1].count == 1 && blocks[1][0].arguments == ["watch"], "the tour's shape changed: \(blocks)")
        let directory = TemporaryDirectory()
        try await withDaemon(directory: directory) { daemon in
            // As in the demo: the start-up load has finished (seq 2), and nothing else has happened.
            let subscription = try await daemon.connect().subscribe()
            for await change in subscription where change.state["status"] == "success" { break }
            let stateDirectory = directory.file("state")
            for step in blocks[0] {
                let result = try await daemon.depotctl(step.arguments)
                Self.check(step, printed: result.standardOutput + result.standardError, stateDirectory: stateDirectory)
            }
            let watch = blocks[1][0]
            let watcher = try ChildProcess(
                Binaries.depotctl, watch.arguments + ["--socket", daemon.socketPath], environment: Daemon.environment(in: directory))
            defer { watcher.signal(SIGKILL) }
            _ = try await watcher.waitForOutputLines(1)
            for step in blocks[2] {
                let result = try await daemon.depotctl(step.arguments)
                Self.check(step, printed: result.standardOutput + result.standardError, stateDirectory: stateDirectory)
            }
            _ = try await watcher.waitForOutputLines(watch.expected.count)
            Self.check(watch, printed: watcher.standardOutput.value, stateDirectory: stateDirectory)
        }
    }
}
