import DepotCore
import DepotJSON
import DepotSources
import DepotTestSupport
import Testing

@Suite("FileSource: deleteItem")
struct FileSourceDeleteTests {
    static let threeItems = """
        [
          {"id": "a", "name": "Alpha", "price": 1.50},
          {"id": 25, "name": "Pikachu", "types": ["electric"]},
          {"name": "Mew", "id": "c", "big": 12345678901234567890, "exp": 1E+2, "nested": {"z": 1, "a": [true, null]}}
        ]

        """

    @Test("removes the item with a string id: the item and its separator go, every other byte stays")
    func removesStringID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)

        try await FileSource(path: path).deleteItem(id: "a")

        #expect(
            TestFiles.text(path) == """
                [
                  {"id": 25, "name": "Pikachu", "types": ["electric"]},
                  {"name": "Mew", "id": "c", "big": 12345678901234567890, "exp": 1E+2, "nested": {"z": 1, "a": [true, null]}}
                ]

                """)
    }

    @Test("an integer id matches its decimal text: 25 is removed by id \"25\"")
    func removesIntegerID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)

        try await FileSource(path: path).deleteItem(id: "25")

        #expect(
            TestFiles.text(path) == """
                [
                  {"id": "a", "name": "Alpha", "price": 1.50},
                  {"name": "Mew", "id": "c", "big": 12345678901234567890, "exp": 1E+2, "nested": {"z": 1, "a": [true, null]}}
                ]

                """)
    }

    @Test("the other items keep their bytes exactly when they were already compact")
    func otherItemsKeepTheirBytes() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let kept = [
            #"{"z":"last member first","id":1,"n":-0.000,"e":6.02E+23,"s":"tab\tquote\"slash\\","u":"Nidoran♀ ✓"}"#,
            #"{"id":3,"deep":[[[]],{}],"t":false}"#,
        ]
        let path = directory.write("items.json", "[\(kept[0]),{\"id\":2},\(kept[1])]")

        try await FileSource(path: path).deleteItem(id: "2")

        #expect(TestFiles.text(path) == "[\(kept[0]),\(kept[1])]")
        let items = try await FileSource(path: path).fetchItems()
        #expect(items.map(\.jsonText) == kept)
    }

    @Test("removing the last item leaves an empty array")
    func removesLastItem() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[{"id": 7}]"#)

        try await FileSource(path: path).deleteItem(id: "7")

        #expect(TestFiles.text(path) == "[]")
        #expect(try await FileSource(path: path).fetchItems() == [])
    }

    @Test("the file keeps its permission bits", arguments: [0o640, 0o600, 0o604] as [UInt32])
    func keepsPermissions(mode: UInt32) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(path, mode)

        try await FileSource(path: path).deleteItem(id: "a")

        #expect(TestFiles.mode(path) == mode)
    }

    @Test("no temporary file is left in the directory")
    func noTemporaryFilesLeft() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        directory.write("other.txt", "unrelated")

        try await FileSource(path: path).deleteItem(id: "a")
        try await FileSource(path: path).deleteItem(id: "c")

        #expect(TestFiles.entries(directory.path) == ["items.json", "other.txt"])
        #expect(TestFiles.text(path) == "[\n  {\"id\": 25, \"name\": \"Pikachu\", \"types\": [\"electric\"]}\n]\n")
    }

    @Test("an unknown id is notFound with an exact message, and the file is unchanged byte for byte")
    func notFound() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(path, 0o640)
        let before = TestFiles.bytes(path)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "99") })

        #expect(error.kind == .notFound)
        #expect(error.message == "file:\(path) has no item with id \"99\"")
        #expect(TestFiles.bytes(path) == before)
        #expect(TestFiles.mode(path) == 0o640)
        #expect(TestFiles.entries(directory.path) == ["items.json"])
    }

    @Test("ids are matched exactly: \"025\" and \"A\" are not 25 and a")
    func idsMatchExactly() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        let before = TestFiles.bytes(path)

        for id in ["025", "A", "25.0", " 25", ""] {
            let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: id) })
            #expect(error == SourceError(.notFound, "file:\(path) has no item with id \"\(id)\""))
        }
        #expect(TestFiles.bytes(path) == before)
    }

    @Test("duplicate ids are invalid data naming the path and the id, and the file is unchanged")
    func duplicateIDs() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let text = #"[{"id": 1}, {"id": "2"}, {"id": "1"}]"#
        let path = directory.write("items.json", text)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "2") })

        #expect(error.kind == .invalidData)
        #expect(error.message == "\(path): duplicate id \"1\": items at index 0 and 2 both have it")
        #expect(TestFiles.text(path) == text)
    }

    @Test("an item without the id field is invalid data, and the file is unchanged")
    func missingIDField() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let text = #"[{"id": 1}, {"name": "no id"}]"#
        let path = directory.write("items.json", text)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "1") })

        #expect(
            error
                == SourceError(
                    .invalidData, "\(path): item at index 1 has no \"id\" member to use as its id (set --id-field if the id lives elsewhere)"))
        #expect(TestFiles.text(path) == text)
    }

    @Test("invalid JSON is reported as when fetching, and the file is unchanged")
    func invalidJSON() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let text = "[{\"id\": 1},]"
        let path = directory.write("items.json", text)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "1") })

        #expect(error == SourceError(.invalidData, "\(path) is not valid JSON: unexpected character ']' at byte 11 (line 1, column 12)"))
        #expect(TestFiles.text(path) == text)
    }

    @Test("a missing file is unavailable")
    func missingFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "1") })

        #expect(error == SourceError(.unavailable, "cannot read \(path): No such file or directory"))
        #expect(TestFiles.entries(directory.path) == [])
    }

    @Test("a custom id field: items are matched by it, and \"id\" members are just data")
    func customIDField() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write(
            "items.json",
            """
            [{"sku": "X-1", "id": 2}, {"sku": "X-2", "id": 1}, {"sku": 3}]
            """)
        let source = FileSource(path: path, idField: "sku")
        #expect(source.idField == "sku")

        try await source.deleteItem(id: "X-2")
        #expect(TestFiles.text(path) == #"[{"sku": "X-1", "id": 2}, {"sku": 3}]"#)

        try await source.deleteItem(id: "3")
        #expect(TestFiles.text(path) == #"[{"sku": "X-1", "id": 2}]"#)

        let error = try #require(await sourceError { try await source.deleteItem(id: "2") })
        #expect(error == SourceError(.notFound, "file:\(path) has no item with id \"2\""))
    }

    @Test("deleting through a symbolic link updates the file it points to and keeps the link")
    func deleteThroughSymbolicLink() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("real.json", #"[{"id": 1}, {"id": 2}]"#)
        let link = directory.file("items.json")
        #expect(symlink(target, link) == 0)

        try await FileSource(path: link).deleteItem(id: "1")

        var status = stat()
        #expect(lstat(link, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK)
        #expect(TestFiles.text(target) == #"[{"id": 2}]"#)
    }

    @Test(
        "when the directory cannot be written, the delete is unavailable and the file unchanged",
        .enabled(if: getuidIsNotRoot(), "root may write anywhere"))
    func readOnlyDirectory() async throws {
        let directory = TemporaryDirectory()
        defer {
            TestFiles.setMode(directory.path, 0o700)
            directory.remove()
        }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(directory.path, 0o500)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "a") })

        #expect(error.kind == .unavailable)
        #expect(error.message.hasPrefix("cannot write \(path) (via its temporary file \(directory.path)/.items.json."))
        #expect(error.message.hasSuffix(".tmp): Permission denied"))
        #expect(TestFiles.text(path) == Self.threeItems)
    }

    @Test("a read-only file is refused with an exact message, whoever runs depotd, and left unchanged", arguments: [0o444, 0o400, 0o555] as [UInt32])
    func readOnlyFile(mode: UInt32) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(path, mode)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "a") })

        let shown = mode == 0o444 ? "0444" : mode == 0o400 ? "0400" : "0555"
        #expect(error == SourceError(.refused, "refusing to rewrite \(path): it is read-only (mode \(shown)); make it writable to allow changes"))
        #expect(TestFiles.text(path) == Self.threeItems)
        #expect(TestFiles.mode(path) == mode)
        #expect(TestFiles.entries(directory.path) == ["items.json"])
    }

    @Test("a read-only file reached through a symbolic link is refused too, naming the path given")
    func readOnlyFileThroughLink() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.write("real.json", #"[{"id": 1}]"#)
        TestFiles.setMode(target, 0o444)
        let link = directory.file("items.json")
        #expect(symlink(target, link) == 0)

        let error = try #require(await sourceError { try await FileSource(path: link).deleteItem(id: "1") })

        #expect(error == SourceError(.refused, "refusing to rewrite \(link): it is read-only (mode 0444); make it writable to allow changes"))
        #expect(TestFiles.text(target) == #"[{"id": 1}]"#)
    }

    @Test(
        "a file this user may not write, though others may, is refused (needs a non-root user)",
        .enabled(if: getuidIsNotRoot(), "root may write any file"))
    func notWritableByThisUser() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(path, 0o464)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "a") })

        #expect(error == SourceError(.refused, "refusing to rewrite \(path): it is read-only (mode 0464); make it writable to allow changes"))
        #expect(TestFiles.text(path) == Self.threeItems)
    }

    @Test("an unknown id in a read-only file is still notFound: the refusal is only for a rewrite")
    func readOnlyFileUnknownID() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", Self.threeItems)
        TestFiles.setMode(path, 0o444)

        let error = try #require(await sourceError { try await FileSource(path: path).deleteItem(id: "99") })

        #expect(error == SourceError.notFound(id: "99", in: "file:\(path)"))
    }
}

#if canImport(Glibc)
import Glibc
#endif

func getuidIsNotRoot() -> Bool {
    getuid() != 0
}
