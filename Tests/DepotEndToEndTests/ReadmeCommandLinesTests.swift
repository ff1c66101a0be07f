import DepotTestSupport
import Foundation
import Testing

/// README.md's command lines, run as written by a user (nobody) whose environment has no XDG_RUNTIME_DIR, as on a
/// machine without a login session: depotd and depotctl must each find the same socket by themselves
/// (/tmp/depot-UID/depotd.sock), and socat must find it through `depotctl socket`. The lines of the sections
/// about systemd are run by the systemd sandbox's tests, as root, where the socket is /run/depot's.
@Suite("README: its command lines work as written where XDG_RUNTIME_DIR is unset")
struct ReadmeCommandLinesTests {
    /// The sections with `sh` blocks that talk to a depotd the user started.
    static let sections = ["## The protocol\n", "## A quick tour\n"]

    /// A code block of the README: its commands (continued lines joined), and what it shows after each.
    struct Block: CustomStringConvertible {
        /// A console block: `$ ` lines, each with its output shown under it.
        var console: Bool
        var commands: [(line: String, shown: [String])] = []
        var description: String { commands.map(\.line).joined(separator: "\n") }

        /// A command that prints states until it is stopped.
        static func streams(_ command: String) -> Bool {
            command.contains("depotctl watch") && !command.contains("--print-pipeline")
        }
    }

    /// The `sh` blocks' commands of `sections`, then the tour's console blocks (last, since the tour ends by
    /// removing Pikachu, 25, whom the socat lines get).
    static func blocks() throws -> [Block] {
        var blocks: [Block] = []
        for heading in sections {
            for lines in ReadmeText.codeBlocks("sh", in: try ReadmeText.section(heading)) {
                var block = Block(console: false)
                var pending = ""
                for line in lines {
                    pending += (pending.isEmpty ? "" : "\n") + line
                    // A line continues while a single quote is open or it ends with a backslash.
                    if pending.filter({ $0 == "'" }).count % 2 == 0, !pending.hasSuffix("\\") {
                        block.commands.append((pending, []))
                        pending = ""
                    }
                }
                blocks.append(block)
            }
        }
        for steps in try ReadmeTourTests.tour() {
            blocks.append(Block(console: true, commands: steps.map { ($0.line, $0.expected) }))
        }
        return blocks
    }

    @Test("the tour's depotctl lines, the pipeline lines, the socat lines and the Python example, each finding the socket itself")
    func asWritten() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) runs a command as another user")
        let blocks = try Self.blocks()
        // The tour's three console blocks, the pipelines' lines and the two socat blocks, at least.
        try #require(blocks.count >= 6 && blocks.flatMap(\.commands).count >= 17, "the README's blocks: \(blocks)")
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // `.build/debug/depotctl` as the tour writes it, `depotctl` on PATH and the example, in a folder of the user's:
        // linked (or copied) there, since nobody may not reach the build folder (a clone in /root).
        for folder in [".build/debug", "bin", "examples"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        for (file, folders) in [
            (Binaries.depotd, ["bin"]), (Binaries.depotctl, [".build/debug", "bin"]), (RepositoryFiles.path("examples/depot_state.py"), ["examples"]),
        ] {
            for folder in folders {
                let target = directory.file("\(folder)/\((file as NSString).lastPathComponent)")
                do {
                    try FileManager.default.linkItem(atPath: file, toPath: target)
                } catch {
                    try FileManager.default.copyItem(atPath: file, toPath: target)
                }
            }
        }
        // The Python package, where `pip install ./clients/python` would put it for this user.
        try FileManager.default.createDirectory(atPath: directory.file("python"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: RepositoryFiles.path("clients/python/src/depot"), toPath: directory.file("python/depot"))
        // The folder is nobody's (the state and an exported pipeline go there); what was linked in stays as it is.
        try await CommandResult.run("/bin/chown", ["65534:65534", directory.path], environment: [:]).expectSuccess()
        let environment = [
            "PATH": "\(directory.file("bin")):/usr/bin:/bin", "HOME": directory.path, "XDG_STATE_HOME": directory.file("state"), "LANG": "C.UTF-8",
            "PYTHONPATH": directory.file("python"),
        ]
        /// `command` run by sh as nobody, in the user's folder.
        func shell(_ command: String) throws -> ChildProcess {
            try ChildProcess(
                "/usr/bin/setpriv", AccessEndToEndTests.nobody + ["/bin/sh", "-c", "cd \(directory.path) && \(command)"], environment: environment)
        }

        let socket = "/tmp/depot-65534/depotd.sock"
        let daemon = try shell("exec depotd")
        defer {
            daemon.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: socket)
        }
        try await daemon.waitForError(containing: "listening on \(socket)")
        let located = try shell("depotctl socket")
        #expect(try await located.waitForExit() == 0 && located.standardOutput.value == socket + "\n", "\(located.standardError.value)")
        // As in the demo: the start-up load has finished before the tour begins.
        #expect(try await shell("depotctl load").waitForExit() == 0)

        // The README's Python example (examples/depot_state.py, which ScriptingTests holds equal to it).
        let python = try shell("python3 examples/depot_state.py")
        #expect(try await python.waitForExit() == 0, "\(python.standardError.value)")
        #expect(python.standardOutput.value.contains("success"), "\(python.standardOutput.value)")

        for block in blocks {
            if block.console || block.commands.contains(where: { Block.streams($0.line) }) {
                for (line, shown) in block.commands {
                    // A watch is exec'd, so that stopping the shell stops it.
                    let child = try shell(Block.streams(line) ? "exec " + line : line)
                    if Block.streams(line) {
                        // Running, and printing states: it works; it would go on until stopped.
                        _ = try await child.waitForOutputLines(1)
                        child.signal(SIGTERM)
                        _ = try await child.waitForExit()
                    } else if shown.first?.hasPrefix("depotctl: ") == true {
                        // The README shows this one failing, with its message.
                        #expect(try await child.waitForExit() != 0, "\(line)")
                        #expect(child.standardError.value.hasPrefix("depotctl: "), "\(line): \(child.standardError.value)")
                        continue
                    } else {
                        #expect(try await child.waitForExit() == 0, "\(line): \(child.standardError.value)")
                    }
                    #expect(!child.standardError.value.contains("depotctl: "), "\(line): \(child.standardError.value)")
                }
            } else {
                // One script: a later line may use what an earlier one set; `cat` meets the end of its input at once.
                let child = try shell(block.description)
                #expect(try await child.waitForExit() == 0, "\(block): \(child.standardError.value)")
                let output = child.standardOutput.value
                #expect(output.contains(#""result":"#) && !output.contains(#""error":"#), "\(block) printed: \(output)\(child.standardError.value)")
            }
        }
    }
}

extension CommandResult {
    fileprivate func expectSuccess() {
        #expect(status == 0, "\(standardError)")
    }
}
