import DepotCore
import DepotDaemon
import DepotHTTPSource
import DepotJSON
import DepotServer
import DepotTestSupport
import Testing

/// The settings of writes: the item schema, the item size limit, the HTTP write URLs and the methods granted alone.
@Suite("DaemonSettings: writes")
struct WriteSettingsTests {
    static let schema = #"{"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 8}}}"#

    @Test("no schema and 1 MiB per item by default")
    func defaults() throws {
        let settings = try resolve(["--source", "file:/srv/items.json"])
        #expect(settings.itemSchema == nil)
        #expect(settings.maxItemBytes == 1_048_576)
        #expect(settings.writeRules.maxItemBytes == 1_048_576)
        #expect(settings.http.putURL == nil && settings.http.patchURL == nil)
    }

    @Test("--item-schema is read relative to the working directory, itemSchema relative to the config file; its violations name the member")
    func itemSchema() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.subdirectory("schemas").write("item.json", Self.schema)
        _ = directory.subdirectory("etc")
        let fromFlag = try resolve(["--source", "file:/srv/items.json", "--item-schema", "schemas/item.json"], workingDirectory: directory.path)
        #expect(fromFlag.itemSchema?.path == path)
        let config = directory.write("etc/depotd.json", #"{"source": "file:/srv/items.json", "itemSchema": "../schemas/item.json"}"#)
        let fromFile = try resolve(["--config", config])
        #expect(fromFile.itemSchema?.path == directory.file("etc/../schemas/item.json"))
        #expect(fromFile.itemSchema?.json == fromFlag.itemSchema?.json)

        let validator = try #require(fromFlag.writeRules.validator)
        #expect(validator.violations(of: try JSONParser.parse(#"{"name": "ok"}"#)).isEmpty)
        let violations = validator.violations(of: try JSONParser.parse(#"{"name": "far too long"}"#))
        #expect(violations.map(\.pointer) == ["/name"])
        #expect(violations.map(\.keyword) == ["maxLength"])
        #expect(validator.violations(of: try JSONParser.parse("{}")).map(\.keyword) == ["required"])
    }

    @Test(
        "a schema that cannot be used is refused at start with what to do",
        arguments: [
            ("missing.json", nil, "missing.json: No such file or directory"),
            ("bad.json", "{oops", "is not valid JSON"),
            ("array.json", "[1]", "must hold a JSON Schema, an object, not an array"),
            (
                "format.json", #"{"properties": {"mail": {"type": "string", "format": "email"}}}"#,
                #"cannot be checked as written: #/properties/mail/format: "format" is a draft-07 keyword this validator does not implement; change or remove those keywords"#
            ),
        ] as [(String, String?, String)])
    func unusableSchema(name: String, text: String?, message: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        if let text { _ = directory.write(name, text) }
        let error = configurationError(["--source", "file:/srv/items.json", "--item-schema", name], workingDirectory: directory.path)
        #expect(error?.description.hasPrefix("--item-schema: ") == true, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(configurationError(["--source", "file:/srv/items.json", "--item-schema", ""])?.description.contains("is empty") == true)
    }

    @Test("--max-item-bytes: from the flag or the file, the flag winning; out of range refused")
    func maxItemBytes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depotd.json", #"{"source": "file:/srv/items.json", "maxItemBytes": 4096}"#)
        #expect(try resolve(["--config", config]).maxItemBytes == 4096)
        #expect(try resolve(["--config", config, "--max-item-bytes", "65536"]).writeRules.maxItemBytes == 65536)
        #expect(configurationError(["--source", "file:/srv/items.json", "--max-item-bytes", "10"])?.description.contains("--max-item-bytes") == true)
    }

    @Test("--put-url and --patch-url: templates with {id}, from flags or the file")
    func urls() throws {
        let settings = try resolve([
            "--source", "https://example.com/items", "--put-url", "https://example.com/items/{id}", "--patch-url",
            "https://example.com/items/{id}?v=2",
        ])
        #expect(settings.http.putURL?.template == "https://example.com/items/{id}")
        #expect(settings.http.patchURL?.template == "https://example.com/items/{id}?v=2")
        let error = configurationError(["--source", "https://example.com/items", "--put-url", "https://example.com/items"])
        #expect(error?.description.contains("has no {id} where the item's id goes") == true, "\(String(describing: error))")
    }

    @Test("a changing method granted alone: from --put-access and the like, or the config file's access, the flag winning")
    func methodAccess() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depotd.json", #"{"source": "file:/srv/items.json", "access": {"write": ["user:1000"], "put": ["user:2000"], "apply": ["group:100"]}}"#)
        let fromFile = try resolve(["--config", config])
        #expect(fromFile.access.write == [.user(1000)])
        #expect(fromFile.access.methods == ["put": [.user(2000)], "apply": [.group(100)]])
        let flags = try resolve(["--config", config, "--put-access", "user:3000, group:200", "--remove-access", "*"])
        #expect(flags.access.methods == ["put": [.user(3000), .group(200)], "apply": [.group(100)], "remove": [.anyone]])
        let error = configurationError(["--source", "file:/srv/items.json", "--patch-access", "bot"])
        #expect(error?.description.contains("--patch-access: patch: \"bot\" is not a principal") == true, "\(String(describing: error))")
    }
}
