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

    @Test(
        "valid URIs and the paths they name",
        arguments: [
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
            Valid(uri: "FILE:/srv/items.json", workingDirectory: "/work", path: "/srv/items.json"),
            Valid(uri: "File:items.json", workingDirectory: "/work", path: "/work/items.json"),
            Valid(uri: "FILE:///srv/items.json", workingDirectory: "/work", path: "/srv/items.json"),
            Valid(uri: "file://localhost/srv/items.json", workingDirectory: "/work", path: "/srv/items.json"),
            Valid(uri: "file://LocalHost/srv/items.json", workingDirectory: "/work", path: "/srv/items.json"),
            Valid(uri: "file:///dir%20with%20spaces/items.json", workingDirectory: "/work", path: "/dir with spaces/items.json"),
            Valid(uri: "file://localhost/caf%C3%A9/%c3%bc.json", workingDirectory: "/work", path: "/café/ü.json"),
            Valid(uri: "file:///100%25.json", workingDirectory: "/work", path: "/100%.json"),
            Valid(uri: "file:/not%20decoded.json", workingDirectory: "/work", path: "/not%20decoded.json"),
            Valid(uri: "file:100%.json", workingDirectory: "/work", path: "/work/100%.json"),
        ])
    func valid(_ valid: Valid) throws {
        let location = try DepotSources.SourceLocation(parsing: valid.uri, workingDirectory: valid.workingDirectory)
        #expect(location == .file(path: valid.path))
        #expect(location.description == "file:\(valid.path)")
    }

    @Test(
        "invalid URIs give an exact message with a hint",
        arguments: [
            ("file:", #"source "file:" names no file; write file:PATH, as in file:/var/lib/depot/items.json"#),
            (
                "file://relative/items.json",
                #"source "file://relative/items.json" needs an absolute path after file://, as in file:///var/lib/depot/items.json; for a relative path write file:relative/items.json"#
            ),
            ("", "the source is empty: give file:PATH or an https:// URL"),
            ("file://", #"source "file://" names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json"#),
            ("FILE://", #"source "FILE://" names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json"#),
            ("file://localhost", #"source "file://localhost" names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json"#),
            ("FILE:", #"source "FILE:" names no file; write file:PATH, as in file:/var/lib/depot/items.json"#),
            (
                "file:///a%2",
                #"source "file:///a%2" has an invalid percent escape "%2": % must be followed by two hex digits; write %25 for a % itself"#
            ),
            (
                "file:///a%zz.json",
                #"source "file:///a%zz.json" has an invalid percent escape "%zz": % must be followed by two hex digits; write %25 for a % itself"#
            ),
            (
                "file:///100%.json",
                #"source "file:///100%.json" has an invalid percent escape "%.j": % must be followed by two hex digits; write %25 for a % itself"#
            ),
            ("file:///a%", #"source "file:///a%" has an invalid percent escape "%": % must be followed by two hex digits; write %25 for a % itself"#),
            ("file:///a%00b", #"source "file:///a%00b" has %00 in its path, and a path cannot contain a NUL byte"#),
            ("file:///a%FF.json", #"source "file:///a%FF.json" has percent escapes that do not decode to UTF-8 text"#),
            (
                "ftp://host/items.json",
                #"source "ftp://host/items.json" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream"#
            ),
            ("http://", #"source "http:///" names no host; write http://HOST/PATH, as in http://example.com/items"#),
            (
                "https://user:hunter2@example.com/items?key=k",
                #"source "https://…@example.com/items?key=…" has a user name or password in it; remove it from the URL and send credentials as a header read from a file ("headerFiles" or "headerCredentials" in the config file)"#
            ),
            (
                "https://example.com:99999/items",
                #"source "https://example.com:99999/items" has the port "99999"; a port is a number from 1 to 65535"#
            ),
            ("https://example.com/items#top", #"source "https://example.com/items" has a fragment (#…), which is never sent to a server; remove it"#),
            (
                "https://example.com/my items",
                #"source "https://example.com/my items" has the character space (write %20), which must be percent-encoded in a URL"#
            ),
            (
                "plain/path",
                #"source "plain/path" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream; did you mean file:plain/path?"#
            ),
            (
                "/var/lib/depot/items.json",
                #"source "/var/lib/depot/items.json" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream; did you mean file:/var/lib/depot/items.json?"#
            ),
            (
                "items.json",
                #"source "items.json" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream; did you mean file:items.json?"#
            ),
        ])
    func invalid(uri: String, message: String) {
        let error = #expect(throws: DepotSources.SourceLocation.ParseError.self) {
            try DepotSources.SourceLocation(parsing: uri, workingDirectory: "/work")
        }
        #expect(error?.description == message)
    }

    @Test("script:PATH is a stream script, a relative path resolved against the working directory")
    func scripts() throws {
        #expect(try DepotSources.SourceLocation(parsing: "script:stream.json", workingDirectory: "/work") == .script(path: "/work/stream.json"))
        #expect(try DepotSources.SourceLocation(parsing: "SCRIPT:/etc/s.json", workingDirectory: "/work") == .script(path: "/etc/s.json"))
        #expect(try DepotSources.SourceLocation(parsing: "script:/etc/s.json", workingDirectory: "/work").description == "script:/etc/s.json")
        #expect {
            try DepotSources.SourceLocation(parsing: "script:", workingDirectory: "/work")
        } throws: { error in
            "\(error)" == #"source "script:" names no file; write script:PATH, as in script:/etc/depot/stream.json"#
        }
    }

    @Test("a parse error keeps the value and the problem apart, so a caller can say where the value came from")
    func errorParts() {
        let error = #expect(throws: DepotSources.SourceLocation.ParseError.self) {
            try DepotSources.SourceLocation(parsing: "ftp://x", workingDirectory: "/work")
        }
        #expect(error?.uri == "ftp://x")
        #expect(
            error?.problem
                == "is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream")
    }
}

@Suite("HTTPAddress")
struct HTTPAddressTests {
    @Test(
        "http and https URLs are sources, the scheme in lower case, shown without the query's values",
        arguments: [
            ("https://example.com/items", "https://example.com/items", "https://example.com/items"),
            ("HTTP://127.0.0.1:8080", "http://127.0.0.1:8080", "http://127.0.0.1:8080/"),
            (
                "https://[::1]:8443/v1/items?api_key=s3cret&page=2&all", "https://[::1]:8443/v1/items?api_key=s3cret&page=2&all",
                "https://[::1]:8443/v1/items?api_key=…&page=…&all"
            ),
        ])
    func valid(uri: String, url: String, shown: String) throws {
        let location = try DepotSources.SourceLocation(parsing: uri, workingDirectory: "/work")
        let address = try HTTPAddress(parsing: uri)
        #expect(location == .http(address))
        #expect(address.url == url)
        #expect(address.description == shown)
        #expect(location.description == shown)
    }
}
