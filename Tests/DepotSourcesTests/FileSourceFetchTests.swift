import DepotCore
import DepotJSON
import DepotSources
import DepotTestSupport
import Testing

@Suite("FileSource: fetchItems")
struct FileSourceFetchTests {
    @Test("items come back in the file's order, with member order and number literals kept")
    func itemsAsWritten() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write(
            "items.json",
            """
            [
              {"id": 1, "name": "Bulbasaur", "weight": 6.90, "big": 12345678901234567890, "exp": 1E+2, "neg": -0.0},
              {"name": "Ivysaur", "id": "two", "nested": {"b": [1, 2.0], "a": null}, "ok": true, "text": "caf\\u00e9 \\"q\\""},
              {"id": 3}
            ]

            """)

        let items = try await FileSource(path: path).fetchItems()

        let expected: [JSONValue] = [
            [
                "id": 1, "name": "Bulbasaur", "weight": number("6.90"), "big": number("12345678901234567890"), "exp": number("1E+2"),
                "neg": number("-0.0"),
            ],
            ["name": "Ivysaur", "id": "two", "nested": ["b": [1, number("2.0")], "a": nil], "ok": true, "text": "café \"q\""],
            ["id": 3],
        ]
        #expect(items == expected)
        #expect(
            items.map(\.jsonText) == [
                #"{"id":1,"name":"Bulbasaur","weight":6.90,"big":12345678901234567890,"exp":1E+2,"neg":-0.0}"#,
                #"{"name":"Ivysaur","id":"two","nested":{"b":[1,2.0],"a":null},"ok":true,"text":"café \"q\""}"#,
                #"{"id":3}"#,
            ])
    }

    @Test("an empty array is an empty list")
    func emptyArray() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", " [ ]\n")
        #expect(try await FileSource(path: path).fetchItems() == [])
    }

    @Test("a leading UTF-8 byte order mark is skipped")
    func byteOrderMark() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.write(path, bytes: [0xEF, 0xBB, 0xBF] + Array(#"[{"id": "a", "name": "Ä"}]"#.utf8))
        let items = try await FileSource(path: path).fetchItems()
        #expect(items == [["id": "a", "name": "Ä"]])
    }

    @Test("elements that are not objects are passed on; the repository judges them")
    func nonObjectElements() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", #"[1, "two", null, {"id": 4}]"#)
        #expect(try await FileSource(path: path).fetchItems() == [1, "two", nil, ["id": 4]])
    }

    @Test("a missing file is unavailable, and the message names the path and the system's reason")
    func missingFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nowhere.json")
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error.kind == .unavailable)
        #expect(error.message == "cannot read \(path): No such file or directory")
    }

    @Test("a missing parent directory is unavailable too")
    func missingDirectory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("no/such/dir/items.json")
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error == SourceError(.unavailable, "cannot read \(path): No such file or directory"))
    }

    @Test("a directory where the file should be is unavailable: not a regular file")
    func directoryInsteadOfFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        TestFiles.makeDirectory(path)
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error == SourceError(.unavailable, "cannot read \(path): it is not a regular file"))
    }

    @Test("invalid JSON names the path, the problem, and the line and column")
    func invalidJSONOnLineThree() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // Line 3 starts at byte 13; the '}' after the trailing comma is byte 22, column 10.
        let path = directory.write(
            "items.json",
            """
            [
            {"id": 1},
            {"id": 2,}
            ]

            """)
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error.kind == .invalidData)
        #expect(error.message == "\(path) is not valid JSON: unexpected character '}' at byte 22 (line 3, column 10)")
    }

    @Test("the column counts characters (Unicode scalars), not bytes, and a byte order mark is not counted")
    func columnInCharacters() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("items.json")
        // After the 3-byte mark, '[{"name": "Nidoran♀",' is 21 characters but 23 bytes ('♀' takes 3):
        // the '}' is byte 26, column 22 (counting bytes from the file's start, it would be column 27).
        TestFiles.write(path, bytes: [0xEF, 0xBB, 0xBF] + Array(#"[{"name": "Nidoran♀",}]"#.utf8))

        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })

        #expect(error == SourceError(.invalidData, "\(path) is not valid JSON: unexpected character '}' at byte 26 (line 1, column 22)"))
    }

    @Test(
        "invalid JSON: table of short files and their exact messages",
        arguments: [
            ("", "no JSON value in the text (empty or only whitespace) (line 1, column 1)"),
            ("\n\n", "no JSON value in the text (empty or only whitespace) (line 3, column 1)"),
            ("[", "unexpected end of text at byte 1 (line 1, column 2)"),
            ("[{\"id\": 1}\n", "unexpected end of text at byte 11 (line 2, column 1)"),
            ("[] []", "unexpected content after the JSON value at byte 3 (line 1, column 4)"),
            ("[\n  01\n]", "invalid number at byte 5 (line 2, column 4)"),
        ])
    func invalidJSONTable(text: String, problem: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", text)
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error == SourceError(.invalidData, "\(path) is not valid JSON: \(problem)"))
    }

    @Test(
        "valid JSON that is not an array is invalid data, with an exact message",
        arguments: [
            (#"{"id": 1}"#, "an object"),
            ("42", "a number"),
            (#""items""#, "a string"),
            ("true", "a boolean"),
            ("null", "a null"),
        ])
    func notAnArray(text: String, holds: String) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("items.json", text)
        let error = try #require(await sourceError { _ = try await FileSource(path: path).fetchItems() })
        #expect(error == SourceError(.invalidData, "\(path) must hold a JSON array of items, but holds \(holds)"))
    }

    @Test("description is file: and the path")
    func description() {
        #expect(FileSource(path: "/srv/items.json").description == "file:/srv/items.json")
        #expect(FileSource(path: "/srv/items.json").idField == "id")
    }
}
