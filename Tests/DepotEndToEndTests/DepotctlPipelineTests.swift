import DepotJSON
import DepotTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `depotctl pipeline …` and `depotctl watch` with a pipeline, on the demo collection.
@Suite("depotctl: pipelines")
struct DepotctlPipelineTests {
    @Test("the short options compile to JSON operators; --print-pipeline prints them without connecting; mistakes exit 64")
    func shorthand() async throws {
        let printed = try await CommandResult.run(
            Binaries.depotctl,
            [
                "watch", "--statuses", "success", "--where", #"/types contains "fire""#, "--where", "/id < 100", "--where", "/name exists",
                "--select", "/name,/types", "--sort", "/name:desc", "--limit", "3", "--distinct", "--throttle", "500ms", "--print-pipeline",
                "--socket", "/nonexistent/depotd.sock",
            ], environment: [:])
        #expect(printed.status == 0, "\(printed.standardError)")
        let expected = """
            [{"op":"statuses","in":["success"]},{"op":"filter","where":{"all":[{"field":"/types","contains":"fire"},\
            {"field":"/id","lt":100},{"field":"/name","exists":true}]}},{"op":"select","fields":["/name","/types"]},\
            {"op":"sort","by":"/name","order":"desc"},{"op":"limit","count":3},{"op":"removeDuplicates"},{"op":"throttle","seconds":0.5}]
            """
        #expect(try JSONParser.parse(Array(printed.standardOutput.utf8)) == JSONParser.parse(Array(expected.utf8)))

        for (arguments, message) in [
            (["--where", "type == fire"], #""type" is not a JSON Pointer; write /type"#),
            (["--where", "/a like 1"], "the test is one of == != <= >= < > in contains prefix, exists, missing"),
            (["--throttle", "soon"], #"--throttle "soon": write a duration such as 500ms, 2s or 1m"#),
            (["--pipeline", #"[{"op":"limit"}]"#], "--pipeline: operator 0 at /0: limit needs \"count\""),
            (["--pipeline", "fire", "--limit", "1"], "--pipeline and the short options (--where, --select, …) do not mix"),
        ] {
            let refused = try await CommandResult.run(Binaries.depotctl, ["watch"] + arguments + ["--print-pipeline"], environment: [:])
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.standardError.contains(message), "\(refused.standardError)")
        }
    }

    @Test("pipeline put, list, get, export, import and delete; watch --pipeline follows a named one until it is deleted")
    func namedPipelines() async throws {
        try await DepotctlTests.withDemo { daemon in
            let put = try await daemon.depotctl([
                "pipeline", "put", "fire", "--description", "fire types", "--where", #"/types contains "fire""#, "--select", "/name",
            ])
            #expect(put.status == 0 && put.standardOutput == "created pipeline fire\n", "\(put.standardError)")
            let list = try await daemon.depotctl(["pipeline", "list"])
            #expect(list.standardOutput == "fire  filter → select  — fire types\n")

            let exported = daemon.directory.file("fire.json")
            #expect(try await daemon.depotctl(["pipeline", "export", "fire", "-o", exported]).status == 0)
            let imported = try await daemon.depotctl(["pipeline", "import", exported, "--name", "fire-copy"])
            #expect(imported.standardOutput == "created pipeline fire-copy\n")
            let copy = try JSONParser.parse(Array(try await daemon.depotctl(["pipeline", "get", "fire-copy", "--json"]).standardOutput.utf8))
            let original = try JSONParser.parse(Array(try await daemon.depotctl(["pipeline", "get", "fire", "--json"]).standardOutput.utf8))
            #expect(copy["pipeline"] == original["pipeline"] && copy["description"] == "fire types")

            let state = try await daemon.depotctl(["state", "--pipeline", "fire", "--json"])
            #expect(try JSONParser.parse(Array(state.standardOutput.utf8))["items"]?.arrayValue?.count == 12)

            let watcher = try ChildProcess(
                Binaries.depotctl, ["watch", "--json", "--pipeline", "fire-copy", "--socket", daemon.socketPath],
                environment: Daemon.environment(in: daemon.directory))
            let first = try JSONParser.parse(try await watcher.waitForOutputLines(1)[0])
            #expect(first["items"]?.arrayValue?.first == ["id": 4, "name": "Charmander"])
            #expect(try await daemon.depotctl(["pipeline", "delete", "fire-copy"]).standardOutput == "deleted pipeline fire-copy\n")
            #expect(try await watcher.waitForExit() == 1)
            // With --json, the error that ended the watch is JSON on stderr too.
            let ended = try JSONParser.parse(watcher.standardError.value)
            #expect(ended["error"]?["message"]?.stringValue == #"the subscription ended: the pipeline "fire-copy" was deleted"#)

            let missing = try await daemon.depotctl(["pipeline", "get", "fire-copy"])
            #expect(missing.status == 1)
            #expect(missing.standardError.contains(#"no pipeline is called "fire-copy""#))
        }
    }
}
