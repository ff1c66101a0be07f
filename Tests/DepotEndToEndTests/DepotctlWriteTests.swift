import DepotClient
import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// depotctl's writes against the real depotd on a file laid out as `json.dump(items, indent=2)` writes it: put,
/// patch, apply, get --etag, remove --if-match, and edit driven through a scripted $EDITOR.
@Suite("depotctl: put, patch, apply, get --etag, edit")
struct DepotctlWriteTests {
    static let items = """
        [
          {
            "id": 1,
            "name": "item 1"
          },
          {
            "id": 2,
            "name": "item 2"
          }
        ]
        """

    static func withFile(_ body: @escaping @Sendable (Daemon, String) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        let path = directory.write("items.json", Self.items)
        try await withDaemon(["--source", "file:" + path, "--no-cache"], directory: directory) { daemon in
            _ = try await daemon.connect().call("load")
            try await body(daemon, path)
        }
    }

    /// An editor: a shell script in the daemon's directory that runs `script` with the file as $1.
    static func editor(_ daemon: Daemon, _ name: String, _ script: String) -> [String: String] {
        let path = daemon.directory.write(name, "#!/bin/sh\n" + script + "\n")
        TestFiles.setMode(path, 0o755)
        return ["EDITOR": path, "TMPDIR": daemon.directory.path]
    }

    @Test("put, patch, get --etag, apply and remove --if-match: what they print, their exit status, and the file in its own layout")
    func commands() async throws {
        try await Self.withFile { daemon, path in
            let put = try await daemon.depotctl(["put", "3", "--if-absent"], input: #"{"name": "three"}"#)
            #expect(put.status == 0, "\(put.standardError)")
            #expect(put.standardOutput.hasPrefix("created 3 · etag "), "\(put.standardOutput)")
            let again = try await daemon.depotctl(["put", "3", "--if-absent"], input: "{}")
            #expect(again.status == 1)
            #expect(
                again.standardError.contains(#"item "3" already exists"#) && again.standardError.hasSuffix("(-32008)\n"), "\(again.standardError)")

            let patched = try await daemon.depotctl(["patch", "2", #"{"name": "two", "extra": true}"#])
            #expect(patched.status == 0 && patched.standardOutput.hasPrefix("patched 2 · etag "), "\(patched.standardError)")
            let failedTest = try await daemon.depotctl(["patch", "2", #"[{"op": "test", "path": "/name", "value": "item 2"}]"#, "--json-patch"])
            #expect(failedTest.status == 1 && failedTest.standardError.contains("(-32008)"))

            let shown = try await daemon.depotctl(["get", "2", "--etag"])
            let etag = try #require(shown.standardOutput.split(separator: "\n").last.map { String($0.dropFirst("etag ".count)) })
            let json = try JSONParser.parse(try await daemon.depotctl(["get", "2", "--etag", "--json"]).standardOutput)
            #expect(json["etag"] == .string(etag))
            #expect(json["item"] == ["id": 2, "name": "two", "extra": true])

            let stale = try await daemon.depotctl(["remove", "2", "--if-match", "0123"])
            #expect(stale.status == 1 && stale.standardError.contains("(-32008)"))
            let applied = try await daemon.depotctl(
                ["apply"], input: #"[{"op": "remove", "id": 2, "ifMatch": "\#(etag)"}, {"op": "patch", "id": 1, "patch": {"name": "one"}}]"#)
            #expect(applied.status == 0 && applied.standardOutput.hasPrefix("applied 2 changes · success · 2 items"), "\(applied.standardError)")
            let refused = try await daemon.depotctl(["apply"], input: #"[{"op": "remove", "id": 1}, {"op": "remove", "id": 404}]"#)
            #expect(refused.status == 1 && refused.standardError.contains(#"no item with id "404""#), "\(refused.standardError)")

            #expect(
                TestFiles.text(path) == """
                    [
                      {
                        "id": 1,
                        "name": "one"
                      },
                      {
                        "id": 3,
                        "name": "three"
                      }
                    ]
                    """, "the file keeps json.dump's layout, and the new item is laid out as its neighbours")
        }
    }

    @Test("bad input is a usage error naming what is wrong, and nothing is sent")
    func badInput() async throws {
        try await Self.withFile { daemon, path in
            let before = TestFiles.text(path)
            let notJSON = try await daemon.depotctl(["put", "9"], input: "{oops")
            #expect(notJSON.status == 64 && notJSON.standardError.contains("the item (standard input) is not valid JSON"), "\(notJSON.standardError)")
            let notObject = try await daemon.depotctl(["put", "9"], input: "[1]")
            #expect(notObject.status == 64 && notObject.standardError.contains("the item must be a JSON object, not an array"))
            let notPatch = try await daemon.depotctl(["patch", "1", #"{"op": "add"}"#, "--json-patch"])
            #expect(notPatch.status == 64 && notPatch.standardError.contains("the patch is not a JSON Patch"))
            let badChange = try await daemon.depotctl(["apply"], input: #"[{"op": "put", "id": 1}]"#)
            #expect(badChange.status == 64 && badChange.standardError.contains(#"changes[0]: put needs "item""#), "\(badChange.standardError)")
            #expect(TestFiles.text(path) == before)
        }
    }

    @Test("edit: saved unchanged, nothing is sent; changed, it is put")
    func editChanged() async throws {
        try await Self.withFile { daemon, path in
            let unchanged = try await daemon.depotctl(["edit", "1"], environment: Self.editor(daemon, "true.sh", "true"))
            #expect(unchanged.status == 0 && unchanged.standardOutput == "1 unchanged; nothing sent\n", "\(unchanged.standardError)")
            let changed = try await daemon.depotctl(["edit", "1"], environment: Self.editor(daemon, "rename.sh", #"sed -i 's/item 1/edited/' "$1""#))
            #expect(changed.status == 0 && changed.standardOutput.hasPrefix("edited 1 · etag "), "\(changed.standardError)")
            #expect(TestFiles.text(path)?.contains(#""name": "edited""#) == true)
            #expect(TestFiles.entries(daemon.directory.path).allSatisfy { !$0.hasPrefix("depotctl-edit-") }, "no file is left behind")
        }
    }

    @Test("edit: text that is not JSON opens the editor again with why on top; fixed, it is put")
    func editInvalidThenFixed() async throws {
        try await Self.withFile { daemon, path in
            let script = """
                if grep -q '^// depotctl edit: not saved:' "$1"; then
                  grep -q 'not valid JSON' "$1" || exit 9
                  sed -i 's/BROKEN/"fixed"/' "$1"
                else
                  sed -i 's/"item 2"/BROKEN/' "$1"
                fi
                """
            let result = try await daemon.depotctl(["edit", "2"], environment: Self.editor(daemon, "twice.sh", script))
            #expect(result.status == 0, "\(result.standardError)")
            #expect(TestFiles.text(path)?.contains(#""name": "fixed""#) == true)
        }
    }

    @Test("edit: the item changed meanwhile — nothing is written, the edit is kept in a file depotctl names, exit 1")
    func editConflict() async throws {
        try await Self.withFile { daemon, path in
            // The editor has another client change the item before it saves.
            let script =
                "\(Binaries.depotctl) --socket \(daemon.socketPath) patch 1 '{\"other\": \"writer\"}' >/dev/null\nsed -i 's/item 1/mine/' \"$1\""
            let result = try await daemon.depotctl(["edit", "1"], environment: Self.editor(daemon, "race.sh", script))
            #expect(result.status == 1)
            #expect(result.standardError.contains("1 changed since it was opened (its etag is now "), "\(result.standardError)")
            let kept = try #require(TestFiles.entries(daemon.directory.path).first { $0.hasPrefix("depotctl-edit-1-") })
            #expect(result.standardError.contains(daemon.directory.file(kept)))
            #expect(TestFiles.text(daemon.directory.file(kept))?.contains(#""name": "mine""#) == true)
            #expect(TestFiles.text(path)?.contains(#""other": "writer""#) == true)
            #expect(TestFiles.text(path)?.contains("mine") == false, "the other writer's change is not lost")
        }
    }
}
