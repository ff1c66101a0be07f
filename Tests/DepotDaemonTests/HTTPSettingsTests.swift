import DepotDaemon
import DepotHTTPSource
import DepotSources
import DepotTestSupport
import Testing

@Suite("DaemonSettings: HTTP source")
struct HTTPSettingsTests {
    @Test("defaults: the whole response, no removals, no headers, 10 s / 30 s, 64 MiB, 5 redirects")
    func defaults() throws {
        let settings = try resolve(["--source", "https://example.com/items"])
        #expect(settings.source == .http(try HTTPAddress(parsing: "https://example.com/items")))
        #expect(settings.http == HTTPSourceOptions())
        #expect(settings.http.connectTimeout == .seconds(10))
        #expect(settings.http.requestTimeout == .seconds(30))
        #expect(settings.http.maxResponseBytes == 64 * 1024 * 1024)
        #expect(settings.http.maxRedirects == 5)
    }

    @Test("flags override the config file; headers and secrets come from the file, paths relative to it")
    func flagsAndFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depotd.json",
            """
            {"source": "https://example.com/api", "itemsPath": "data.results", "deleteURL": "https://example.com/api/{id}",
             "headers": {"Accept": "application/vnd.api+json", "X-Client": "depot"},
             "headerFiles": {"Authorization": "secrets/token"}, "headerCredentials": {"X-Api-Key": "depot-key"},
             "connectTimeout": 2.5, "requestTimeout": 60, "maxResponseBytes": 2048, "maxRedirects": 0}
            """)
        let fromFile = try resolve(["--config", config], environment: ["CREDENTIALS_DIRECTORY": "/run/credentials/depotd.service"])
        #expect(fromFile.http.itemsPath.members == ["data", "results"])
        #expect(fromFile.http.deleteURL?.template == "https://example.com/api/{id}")
        #expect(fromFile.http.headers.map(\.name) == ["Accept", "X-Client"])
        #expect(
            fromFile.http.secretHeaders == [
                try SecretHeader(name: "Authorization", path: directory.file("secrets/token"), origin: .file),
                try SecretHeader(name: "X-Api-Key", path: "/run/credentials/depotd.service/depot-key", origin: .credential("depot-key")),
            ])
        #expect(fromFile.http.connectTimeout == .milliseconds(2500))
        #expect(fromFile.http.requestTimeout == .seconds(60))
        #expect(fromFile.http.maxResponseBytes == 2048)
        #expect(fromFile.http.maxRedirects == 0)

        let flags = try resolve(
            [
                "--config", config, "--items-path", "results", "--delete-url", "http://other/{id}", "--connect-timeout", "0.5",
                "--request-timeout", "1", "--max-response-bytes", "4096", "--max-redirects", "2",
            ],
            environment: ["CREDENTIALS_DIRECTORY": "/creds"]
        )
        #expect(flags.http.itemsPath.members == ["results"])
        #expect(flags.http.deleteURL?.template == "http://other/{id}")
        #expect(flags.http.connectTimeout == .milliseconds(500))
        #expect(flags.http.requestTimeout == .seconds(1))
        #expect(flags.http.maxResponseBytes == 4096)
        #expect(flags.http.maxRedirects == 2)
        #expect(flags.http.headers.count == 2)
    }

    @Test(
        "invalid flags name the flag, and a URL's secrets are not shown",
        arguments: [
            (["--items-path", "a..b"], #"--items-path "a..b" has an empty member name; write member names separated by dots, as in data.results"#),
            (
                ["--delete-url", "https://host/items"],
                #"--delete-url "https://host/items" has no {id} where the item's id goes, as in https://example.com/items/{id}"#
            ),
            (
                ["--delete-url", "https://u:pw@host/{id}?key=s3"],
                #"--delete-url "https://…@host/{id}?key=…" has a user name or password in it; remove it from the URL and send credentials as a header read from a file ("headerFiles" or "headerCredentials" in the config file)"#
            ),
            (["--request-timeout", "0"], "--request-timeout 0 must be a number of seconds between 0.1 and 3600 (default 30)"),
            (["--connect-timeout", "601"], "--connect-timeout 601 must be a number of seconds between 0.1 and 600 (default 10)"),
            (["--max-response-bytes", "10"], "--max-response-bytes 10 must be an integer between 1024 and 1073741824 (default 67108864)"),
            (["--max-redirects", "21"], "--max-redirects 21 must be an integer between 0 and 20 (default 5)"),
        ])
    func invalidFlags(arguments: [String], message: String) {
        #expect(configurationError(arguments) == ConfigurationError(message))
    }

    @Test(
        "invalid headers in the config file are named, without their values",
        arguments: [
            (
                #"{"headers": {"Bad Name": "v"}}"#,
                #""headers": Bad Name "Bad Name" is not a header name; use letters, digits and -, as in Authorization"#
            ),
            (
                #"{"headers": {"X-A": "s3cret\r\nX-B: 1"}}"#,
                #""headers": X-A has a line break or control character in its value; a header value must be one line"#
            ),
            (#"{"headers": {"X-A": 1}}"#, #""headers": "X-A" must be a string, not number"#),
            (
                #"{"headers": ["X-A"]}"#,
                #""headers" must be an object of header names and strings, such as {"Accept": "application/json"}, not array"#
            ),
            (
                #"{"headers": {"authorization": "x"}, "headerFiles": {"Authorization": "/t"}}"#,
                #"the header Authorization is given twice (in "headers" and "headerFiles"); keep one"#
            ),
            (
                #"{"headerFiles": {"Authorization": ""}}"#,
                #""headerFiles": Authorization names no file; give the path of the file that holds its value"#
            ),
            (
                #"{"headerCredentials": {"Authorization": "../x"}}"#,
                #""headerCredentials": Authorization names the credential "../x"; a credential's name is a file name, as in LoadCredential=depot-token:/etc/depot/token"#
            ),
            (
                #"{"headerCredentials": {"Authorization": "depot-token"}}"#,
                #""headerCredentials" needs $CREDENTIALS_DIRECTORY, which systemd sets for a service with LoadCredential=depot-token:/path/to/file; outside systemd, use "headerFiles" instead"#
            ),
            (#"{"requestTimeout": "30"}"#, #""requestTimeout" must be a number of seconds, such as 2.5, not "30""#),
        ])
    func invalidFile(text: String, problem: String) {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depotd.json", text)
        let error = configurationError(["--config", config])
        #expect(error == ConfigurationError("config file \(config): \(problem)"))
        #expect(error?.description.contains("s3cret") == false)
    }
}
