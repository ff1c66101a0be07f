import DepotSources
import Testing

@Suite("SourceLocation")
struct SourceLocationTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let uri: String
        let workingDirectory: String
        let path: String
        var testDescription: String { "\(uri) in \(workingDirectory)" }
    }

    @Test("valid URIs and the paths they name", arguments: [
        Valid(uri: "file:/var/lib/depot/items.json", workingDirectory: "/work", path: "/var/lib/depot/items.json"),
        Valid(uri: "file:items.json", workingDirectory: "/work", path: "/work/items.json"),
        Valid(uri: "file:data/items.json", workingDirectory: "/work/", path: "/work/data/items.json"),
        Valid(uri: "file:./items.json", workingDirectory: "/work", path: "/work/items.json"),
        Valid(uri: "file:./data/items.json", workingDirectory: "/", path: "/data/items.json"),
        Valid(uri: "file:items.json", workingDirectory: "/", path: "/items.json"),
        Valid(uri: "file:../items.json", workingDirectory: "/work/sub", path: "/work/sub/../items.json"),
        Valid(uri: "file:///srv/items.json", workingDirectory: "/work", path: "/srv/items.json"),
        Valid(uri: "file:////srv/items.json", workingDirectory: "/work", path: "//srv/items.json"),
        Valid(uri: "file:/dir with spaces/ünïcode.json", workingDirectory: "/work", path: "/dir with spaces/ünïcode.json"),
    ])
    func valid(_ valid: Valid) throws {
        let location = try DepotSources.SourceLocation(parsing: valid.uri, workingDirectory: valid.workingDirectory)
        #expect(location == .file(path: valid.path))
        #expect(location.description == "file:\(valid.path)")
    }

    @Test("invalid URIs give an exact message with a hint", arguments: [
        ("file:", #"source "file:" names no file; write file:PATH, as in file:/var/lib/depot/items.json"#),
        ("file://relative/items.json", #"source "file://relative/items.json": a file:// URI needs an absolute path, as in file:///var/lib/depot/items.json; for a relative path write file:relative/items.json"#),
        ("http://x", #"source "http://x" is not supported: use file:PATH for a JSON file"#),
        ("https://example.com/items.json", #"source "https://example.com/items.json" is not supported: use file:PATH for a JSON file"#),
        ("plain/path", #"source "plain/path" is not supported: use file:PATH for a JSON file; did you mean file:plain/path?"#),
        ("/var/lib/depot/items.json", #"source "/var/lib/depot/items.json" is not supported: use file:PATH for a JSON file; did you mean file:/var/lib/depot/items.json?"#),
        ("items.json", #"source "items.json" is not supported: use file:PATH for a JSON file; did you mean file:items.json?"#),
    ])
    func invalid(uri: String, message: String) {
        let error = #expect(throws: DepotSources.SourceLocation.ParseError.self) {
            try DepotSources.SourceLocation(parsing: uri, workingDirectory: "/work")
        }
        #expect(error?.description == message)
    }
}
