import DepotCore
import DepotJSON
import DepotSources
import DepotTestSupport
import Testing

@Suite("FileSource through a Repository")
struct FileSourceRepositoryTests {
    static let text = """
        [
          {"id": 1, "name": "Bulbasaur"},
          {"id": "two", "name": "Ivysaur", "weight": 13.0},
          {"id": 3, "name": "Venusaur"}
        ]

        """

    @Test("load publishes success with the file's ids and items in order")
    func loadSucceeds() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let repository = makeRepository(FileSource(path: path))
        let recorder = StateRecorder()
        repository.addObserver(recorder)

        let published = try await withTimeout { try await repository.load().result.get() }

        #expect(recorder.statuses == [.idle, .loading, .success])
        #expect(published.seq == 2)
        let items = try #require(published.state.items)
        #expect(items.items.map(\.id) == ["1", "two", "3"])
        #expect(String(decoding: items.items[1].json, as: UTF8.self) == #"{"id":"two","name":"Ivysaur","weight":13.0}"#)
        #expect(repository.item(id: "3")?.json == Array(#"{"id":3,"name":"Venusaur"}"#.utf8))
    }

    @Test("remove deletes the item from the file, and the published state matches the file")
    func removeUpdatesFileAndState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let source = FileSource(path: path)
        let repository = makeRepository(source)
        _ = try await withTimeout { try await repository.load().result.get() }

        let published = try await withTimeout { try await repository.remove(id: "two").result.get() }

        #expect(TestFiles.text(path) == "[\n  {\"id\": 1, \"name\": \"Bulbasaur\"},\n  {\"id\": 3, \"name\": \"Venusaur\"}\n]\n")
        let stateItems = try #require(published.state.items).items
        #expect(stateItems.map(\.id) == ["1", "3"])
        let fileItems = try await source.fetchItems()
        #expect(stateItems.map(\.json) == fileItems.map(\.jsonBytes))
        #expect(repository.item(id: "two") == nil)
    }

    @Test("optimistic remove ends in the same state and file")
    func optimisticRemove() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let repository = makeRepository(FileSource(path: path))
        let recorder = StateRecorder()
        repository.addObserver(recorder)
        _ = try await withTimeout { try await repository.load().result.get() }

        let published = try await withTimeout { try await repository.remove(id: "1", optimistic: true).result.get() }

        #expect(recorder.statuses == [.idle, .loading, .success, .success, .success])
        #expect(published.state.items?.items.map(\.id) == ["two", "3"])
        #expect(
            TestFiles.text(path) == "[\n  {\"id\": \"two\", \"name\": \"Ivysaur\", \"weight\": 13.0},\n  {\"id\": 3, \"name\": \"Venusaur\"}\n]\n")
    }

    @Test("removing an unknown id fails with notFound naming the source, rolls back, and leaves the file alone")
    func removeUnknownID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let repository = makeRepository(FileSource(path: path))
        let loaded = try await withTimeout { try await repository.load().result.get() }

        let result = try await withTimeout { await repository.remove(id: "99").result }
        let error = try #require(result.failureValue)

        #expect(error.kind == .notFound)
        #expect(error.message == "file:\(path) has no item with id \"99\"")
        #expect(error.state.state == loaded.state)
        #expect(TestFiles.text(path) == Self.text)
    }

    @Test("a missing file gives a failure state whose message names the path")
    func missingFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing.json")
        let repository = makeRepository(FileSource(path: path))

        let result = try await withTimeout { await repository.load().result }
        let error = try #require(result.failureValue)

        #expect(error.kind == .loadFailed)
        #expect(error.message == "cannot read \(path): No such file or directory")
        #expect(repository.current.state == .failure(StateError(.loadFailed, message: error.message)))
    }

    @Test("a file whose items have no usable id gives a failure naming the source and the index")
    func itemWithoutID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id": 1}, {"id": 1.5}]"#)
        let repository = makeRepository(FileSource(path: path))

        let result = try await withTimeout { await repository.load().result }
        let error = try #require(result.failureValue)

        #expect(error.kind == .loadFailed)
        #expect(error.message == "file:\(path): item at index 1 has an unusable \"id\": the number 1.5; ids must be non-empty strings or integers")
    }

    @Test("a change to the file is seen by the next load")
    func reloadSeesChanges() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let repository = makeRepository(FileSource(path: path))
        _ = try await withTimeout { try await repository.load().result.get() }

        directory.write("items.json", #"[{"id": "new"}]"#)
        let published = try await withTimeout { try await repository.load().result.get() }

        #expect(published.state.items?.items.map(\.id) == ["new"])
    }

    @Test("a removal reads the file once and publishes what it wrote: edits made by others since the load show")
    func removalPublishesTheRewrittenFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let source = FileSource(path: path)
        let repository = makeRepository(source)
        _ = try await repository.load().result.get()
        // Someone edits the file after the load: the removal's state is the file as rewritten, not a guess.
        _ = directory.write(
            "items.json",
            """
            [{"id": 1, "name": "Bulbasaur"}, {"id": "two", "name": "Ivysaur", "weight": 13.0}, {"id": 3, "name": "Venusaur"}, {"id": 4, "name": "Charmander"}]
            """)
        let removed = try await repository.remove(id: "two").result.get()
        #expect(removed.state.items?.items.map(\.id) == ["1", "3", "4"])
        #expect(removed.state.provenance?.origin == .source)
        #expect(try await source.fetchItems().count == 3)
    }

    @Test("deleteItem answers the list it wrote")
    func deleteAnswersWhatItWrote() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.text)
        let source = FileSource(path: path)
        let remaining = try remainingList(try await source.deleteItem(id: "1")).items
        #expect(remaining == (try ItemCollection(values: try await source.fetchItems(), idField: "id")))
    }
}
