import DepotJSON
import DepotOperators
import DepotPipeline
import DepotTestSupport
import DepotWire
import Foundation
import Logging
import Testing

@Suite("PipelineLibrary")
struct PipelineLibraryTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    func named(_ name: String, _ text: String = #"[{"op":"limit","count":1}]"#, description: String? = nil) throws -> NamedPipeline {
        NamedPipeline(name: name, description: description, pipeline: try pipeline(text))
    }

    @Test("put stores a file per pipeline; a new library reads them back; delete removes the file")
    func storesDurably() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file("state/pipelines")
        let library = PipelineLibrary(storeDirectory: store, logger: Self.quiet)
        #expect(try library.put(named("fire", description: "fire types")))
        #expect(try !library.put(named("fire", #"[{"op":"limit","count":2}]"#)), "a replacement is not a creation")
        try library.put(named("b.2_x-y"))
        #expect(FileManager.default.fileExists(atPath: store + "/fire.json"))
        #expect(try String(contentsOfFile: store + "/fire.json", encoding: .utf8) == #"{"name":"fire","pipeline":[{"op":"limit","count":2}]}"# + "\n")

        let again = PipelineLibrary(storeDirectory: store, logger: Self.quiet)
        #expect(again.list().map(\.named.name) == ["b.2_x-y", "fire"])
        #expect(again.entry("fire")?.named.pipeline == (try pipeline(#"[{"op":"limit","count":2}]"#)))
        #expect(again.entry("fire")?.isReadOnly == false)

        try again.delete("fire")
        #expect(!FileManager.default.fileExists(atPath: store + "/fire.json"))
        #expect(throws: PipelineLibraryError.self) { try again.delete("fire") }
        #expect(PipelineLibrary(storeDirectory: store, logger: Self.quiet).list().map(\.named.name) == ["b.2_x-y"])
    }

    @Test("configured pipelines are read-only, hide a stored one of the same name, and are read again on reload")
    func configured() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file("state/pipelines"), configured = directory.file("etc/pipelines")
        try FileManager.default.createDirectory(atPath: configured, withIntermediateDirectories: true)
        try #"{"name":"ops","description":"for the ops team","pipeline":[{"op":"statuses","in":["failure"]}]}"#
            .write(toFile: configured + "/ops.json", atomically: true, encoding: .utf8)
        try #"{"name":"other","pipeline":[]}"#.write(toFile: configured + "/wrong-name.json", atomically: true, encoding: .utf8)
        try "not json".write(toFile: configured + "/broken.json", atomically: true, encoding: .utf8)
        try PipelineLibrary(storeDirectory: store, logger: Self.quiet).put(named("ops"))

        let library = PipelineLibrary(storeDirectory: store, configuredDirectory: configured, logger: Self.quiet)
        #expect(library.list().map(\.named.name) == ["ops"], "a file named after another pipeline, and one that is not JSON, are skipped")
        #expect(library.entry("ops")?.isReadOnly == true)
        #expect(library.entry("ops")?.named.description == "for the ops team")
        #expect {
            try library.put(named("ops"))
        } throws: { error in
            "\(error)".contains("is configured in \(configured)/ops.json and is read-only here")
        }
        #expect(throws: PipelineLibraryError.self) { try library.delete("ops") }

        // The file changes, another appears: a reload reports both, with what they are now.
        try #"{"name":"ops","pipeline":[{"op":"statuses","in":["success"]}]}"#.write(
            toFile: configured + "/ops.json", atomically: true, encoding: .utf8)
        try #"{"name":"new","pipeline":[]}"#.write(toFile: configured + "/new.json", atomically: true, encoding: .utf8)
        let changes = library.reloadConfigured()
        #expect(Set(changes.keys) == ["ops", "new"])
        #expect(changes["ops"]??.pipeline == (try pipeline(#"[{"op":"statuses","in":["success"]}]"#)))

        // The configured one goes: the stored one of that name shows again.
        try FileManager.default.removeItem(atPath: configured + "/ops.json")
        #expect(library.reloadConfigured()["ops"]??.pipeline == (try pipeline(#"[{"op":"limit","count":1}]"#)))
        #expect(library.entry("ops")?.isReadOnly == false)
    }

    @Test(
        "a named pipeline's name is a safe file name; decoding says which member is wrong",
        arguments: [
            (#"{"name":"../x","pipeline":[]}"#, "/name"),
            (#"{"name":"","pipeline":[]}"#, "/name"),
            (#"{"name":".hidden","pipeline":[]}"#, "/name"),
            (#"{"name":"a","pipeline":[{"op":"nope"}]}"#, "/pipeline/0/op"),
            (#"{"name":"a"}"#, "/pipeline"),
            (#"{"name":"a","pipeline":[],"owner":"me"}"#, "/owner"),
            (#"{"name":"a","description":1,"pipeline":[]}"#, "/description"),
        ])
    func names(text: String, pointer: String) {
        #expect {
            try NamedPipeline(decoding: json(text))
        } throws: { error in
            (error as? PipelineError)?.pointer.description == pointer
        }
    }

    @Test("from an event loop, put and delete run on the library's own queue: the caller's thread never waits on the disk")
    func storesOffTheCaller() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file("state/pipelines")
        let library = PipelineLibrary(storeDirectory: store, logger: Self.quiet)
        let fire = try named("fire")
        // Called from a thread of its own that stays until the store is done, so no other thread can have its id.
        let (created, ranOnCaller) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let caller = pthread_self()
                let done = DispatchSemaphore(value: 0)
                library.put(fire) { result in
                    continuation.resume(with: result.map { ($0, pthread_equal(pthread_self(), caller) != 0) })
                    done.signal()
                }
                done.wait()
            }
        }
        #expect(created)
        #expect(!ranOnCaller, "the store ran on the caller's thread")
        #expect(FileManager.default.fileExists(atPath: store + "/fire.json"), "written before the completion")
        #expect(library.entry("fire")?.named == fire, "known before the completion")

        let gone: Void = try await withCheckedThrowingContinuation { continuation in
            library.delete("fire") { continuation.resume(with: $0) }
        }
        _ = gone
        #expect(!FileManager.default.fileExists(atPath: store + "/fire.json"))
        let missing = await withCheckedContinuation { continuation in
            library.delete("fire") { continuation.resume(returning: $0) }
        }
        #expect(throws: PipelineLibraryError.self) { try missing.get() }
    }

    @Test("stores from many threads at once: each file holds the pipeline the library keeps under its name")
    func concurrentStores() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file("state/pipelines")
        let library = PipelineLibrary(storeDirectory: store, logger: Self.quiet)
        let names = ["a", "b", "c", "d"]
        let pipelines = try (1...8).map { try pipeline(#"[{"op":"limit","count":\#($0)}]"#) }
        DispatchQueue.concurrentPerform(iterations: 64) { turn in
            let named = NamedPipeline(name: names[turn % names.count], description: nil, pipeline: pipelines[turn % pipelines.count])
            _ = try? library.put(named)
            _ = library.list()
        }
        let reread = PipelineLibrary(storeDirectory: store, logger: Self.quiet)
        for name in names {
            #expect(reread.entry(name)?.named == library.entry(name)?.named, "\(name): the file and the library agree")
        }
    }
}
