import DepotCore
import DepotJSON
import DepotSources
import DepotTestSupport
import Testing

@Suite("DemoSeeding")
struct DemoSeedingTests {
    @Test("creates the state directory and seeds items.json with the 151 Pokémon, which load through a repository")
    func seedsTheDemoCollection() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let stateDirectory = directory.file("state/depot")

        let (path, seeded) = try DemoSeeding.prepareDefaultFile(in: stateDirectory)

        #expect(path == stateDirectory + "/items.json")
        #expect(seeded)
        #expect(TestFiles.isDirectory(stateDirectory))
        #expect(TestFiles.mode(stateDirectory) == 0o700)
        #expect(TestFiles.mode(path) == 0o644)
        #expect(TestFiles.text(path) == DemoCollection.json)
        #expect(TestFiles.entries(stateDirectory) == ["items.json"])

        let repository = makeRepository(FileSource(path: path))
        let published = try await withTimeout { try await repository.load().result.get() }
        let items = try #require(published.state.items)
        #expect(items.count == 151)
        #expect(items.items.map(\.id) == (1...151).map(String.init))
        let pikachu = try #require(repository.item(id: "25"))
        #expect(try pikachu.value["name"] == "Pikachu")
        #expect(String(decoding: pikachu.json, as: UTF8.self) == #"{"id":25,"name":"Pikachu","types":["electric"]}"#)
        #expect(try repository.item(id: "151")?.value["name"] == "Mew")
    }

    @Test("the seeded file can have an item removed through FileSource")
    func seededFileSupportsRemoval() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (path, _) = try DemoSeeding.prepareDefaultFile(in: directory.path)

        try await FileSource(path: path).deleteItem(id: "25")

        let items = try await FileSource(path: path).fetchItems()
        #expect(items.count == 150)
        #expect(!items.contains { $0["id"] == 25 })
        #expect(items[24]["name"] == "Raichu")
    }

    @Test("a trailing slash on the state directory gives no double slash")
    func trailingSlash() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let (path, seeded) = try DemoSeeding.prepareDefaultFile(in: directory.path + "/")
        #expect(path == directory.path + "/items.json")
        #expect(seeded)
    }

    @Test("a second call leaves an edited file alone and reports seeded = false")
    func doesNotOverwrite() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try DemoSeeding.prepareDefaultFile(in: directory.path)
        #expect(first.seeded)
        let edited = #"[{"id": "mine"}]"#
        directory.write("items.json", edited)

        let second = try DemoSeeding.prepareDefaultFile(in: directory.path)

        #expect(second.path == first.path)
        #expect(!second.seeded)
        #expect(TestFiles.text(first.path) == edited)
    }

    @Test("an existing file that holds an empty array stays empty, and loads as no items", arguments: ["[]", "[]\n", ""])
    func existingEmptyFileStays(text: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", text)

        let result = try DemoSeeding.prepareDefaultFile(in: directory.path)

        #expect(result.path == path)
        #expect(!result.seeded)
        #expect(TestFiles.text(path) == text)
    }

    @Test("an existing state directory keeps its mode")
    func existingDirectoryKeepsMode() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        TestFiles.setMode(directory.path, 0o751)
        _ = try DemoSeeding.prepareDefaultFile(in: directory.path)
        #expect(TestFiles.mode(directory.path) == 0o751)
    }

    @Test("a file where the state directory should be fails with a SourceError naming the path")
    func fileInTheWay() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.write("state", "not a directory")

        let error = try #require(await sourceError { _ = try DemoSeeding.prepareDefaultFile(in: blocker) })

        #expect(
            error
                == SourceError(
                    .unavailable, "cannot prepare the state directory: cannot create directory \(blocker): it exists and is not a directory"))
        #expect(TestFiles.text(blocker) == "not a directory")
    }
}
