import DepotClient
import DepotJSON
import DepotPlatform
import DepotTestSupport
import DepotWire
import Foundation
import Testing

extension WriteLoadTests {
    /// Power loss, not only a killed process: depotd makes a sequence of writes to its file under the write recorder
    /// (every open, write, fsync, rename of the file's directory, in order, with the test's marks of each call asked and
    /// answered between them), and every point of that sequence is checked as a power loss there would leave the disk —
    /// only synced bytes and synced names survive.
    @Suite(
        "depotd: a power loss at any point of a file's writes",
        .timeLimit(.minutes(3)),
        // The recorder interposes the calls ThreadSanitizer's runtime does; under it the test is not run.
        .disabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil))
    struct PowerLossEndToEndTests {
        /// The log the test marks its calls in, between the recorder's records (both append whole records).
        struct MarkLog {
            let fd: Int32

            init(_ path: String) {
                fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            }

            func mark(_ kind: String, _ number: Int) {
                let line = Array("\(kind) \(number)\n".utf8)
                _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            }
        }

        @Test(
            "at every point of 40 writes, the file is the version of the last answered write or of the one under way: never torn, never missing, never older"
        )
        func everyPoint() async throws {
            let directory = TemporaryDirectory()
            defer { directory.remove() }
            let data = directory.subdirectory("data")
            let dataPath = Files.realPath(of: data.path) ?? data.path
            let path = dataPath + "/items.json"
            // As Python's json.dump writes a list: one line, ", " and ": ".
            let initial = Array(("[" + (1...20).map { #"{"id": \#($0), "name": "item \#($0)"}"# }.joined(separator: ", ") + "]").utf8)
            try Data(initial).write(to: URL(fileURLWithPath: path))
            let logPath = directory.file("writes.log")
            let marks = MarkLog(logPath)
            defer { close(marks.fd) }

            let daemon = try await Daemon.start(
                ["--source", "file:" + path], directory: directory,
                environment: [
                    "LD_PRELOAD": Binaries.folder + "/libDepotWriteRecorder.so", "DEPOT_RECORD_DIR": dataPath, "DEPOT_RECORD_LOG": logPath,
                ])
            var states: [[JSONValue]] = [try JSONParser.parse(initial).arrayValue ?? []]
            var refused = 0
            do {
                let connection = try await daemon.connect()
                _ = try await connection.call(LoadRequest())
                var random = SplitMix64(seed: 40)
                var nextID = 21
                for number in 1...40 {
                    let ids = itemsByID(states.last ?? []).keys.sorted()
                    let existing = JSONValue.number(JSONNumber(Int(ids.randomElement(using: &random) ?? "1") ?? 1))
                    let fresh = JSONValue.number(JSONNumber(nextID))
                    let optimistic = Bool.random(using: &random)
                    marks.mark("ask", number)
                    let state: WireState
                    do {
                        switch Int.random(in: 0..<10, using: &random) {
                        case 0..<3:
                            nextID += 1
                            state = try await connection.call(
                                PutRequest(id: fresh, item: ["name": .string("new \(number)")], optimistic: optimistic, items: true)
                            )
                            .state
                        case 3..<5:
                            state = try await connection.call(
                                PatchRequest(
                                    id: existing, patch: .merge(["name": .string("patched \(number)"), "n": .number(JSONNumber(number))]),
                                    optimistic: optimistic, items: true)
                            ).state
                        case 5..<7:
                            state = try await connection.call(RemoveRequest(id: existing.jsonText, optimistic: optimistic, items: true))
                        case 7..<9:
                            nextID += 1
                            let changes = [
                                WireChange(.put, id: fresh, item: ["name": .string("batch \(number)")]),
                                WireChange(.patch, id: existing, patch: .merge(["batch": .number(JSONNumber(number))])),
                            ]
                            state = try await connection.call(ApplyRequest(changes: changes, optimistic: optimistic, items: true)).state
                        default:
                            // Refused: the etag is no version's. Nothing is written.
                            state = try await connection.call(
                                PutRequest(id: existing, item: [:], ifMatch: String(repeating: "0", count: 32), items: true)
                            ).state
                        }
                    } catch {
                        guard case .remote(let remote) = error, remote.code == DepotErrorCode.conflict else { throw error }
                        refused += 1
                        states.append(states.last ?? [])
                        marks.mark("answer", number)
                        continue
                    }
                    marks.mark("answer", number)
                    states.append(state.items ?? [])
                }
                try await daemon.kill()
            } catch {
                await daemon.cleanUp()
                throw error
            }

            let calls = try RecordedCall.parse(Array(try Data(contentsOf: URL(fileURLWithPath: logPath))))
            var model = PowerLossModel(directory: dataPath, existing: ["items.json": initial])
            var (asked, answered, points) = (0, 0, 0)
            /// What a power loss now leaves: the file whole, as the last answered write left it or as the one under way does.
            func check(after call: RecordedCall?) {
                points += 1
                let at = call.map { "after \($0) (point \(points))" } ?? "before any call"
                guard let bytes = model.afterPowerLoss("items.json") else {
                    Issue.record("\(at): the file is missing after a power loss")
                    return
                }
                guard model.versions["items.json"]?.contains(bytes) == true, let items = (try? JSONParser.parse(bytes))?.arrayValue else {
                    Issue.record("\(at): the file is torn after a power loss: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
                    return
                }
                let allowed = [states[answered]] + (asked > answered ? [states[asked]] : [])
                if !allowed.contains(items) {
                    Issue.record("\(at): the file holds \(items.count) items, not the state of write \(answered) (answered) or \(asked) (asked)")
                }
            }
            check(after: nil)
            for call in calls {
                try model.apply(call)
                if case .mark(let kind, let number) = call {
                    if kind == "ask" { asked = number } else { answered = number }
                }
                check(after: call)
            }
            #expect(answered == 40)
            #expect(
                model.current("items.json") == Array(try Data(contentsOf: URL(fileURLWithPath: path))), "the record has every change the file had")
            let renames = calls.filter { if case .rename = $0 { true } else { false } }.count
            #expect(renames == 40 - refused, "one rewrite a write, a batch too; none for a refused one")
            #expect(refused > 0)
            #expect(points > 300, "\(points) points checked")
        }
    }
}
