import DepotDaemon
import DepotFreshness
import DepotTestSupport
import Testing

@Suite("DaemonSettings: keeping the collection fresh")
struct RefreshSettingsTests {
    @Test("defaults: auto, 10 % jitter, always, retries up to 300 s, files watched; auto follows lifetimes only for HTTP")
    func defaults() throws {
        let file = try resolve(["--source", "file:/srv/items.json"])
        #expect(file.refresh == RefreshPolicy(interval: .auto, jitter: 0.1, when: .always, retryMax: .seconds(300), sourceStatesLifetimes: false))
        #expect(file.watchFile)
        #expect(try resolve(["--source", "https://api.example.com/items"]).refresh.sourceStatesLifetimes)
        #expect(try !resolve(["--source", "script:/srv/stream.json"]).refresh.sourceStatesLifetimes)
    }

    @Test("from the config file, and every flag beats it")
    func layers() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depot.json",
            #"{"refreshInterval": 60, "refreshJitter": 0.25, "refreshWhen": "subscribed", "retryMax": 30, "watchFile": false}"#)
        let fromFile = try resolve(["--config", config])
        #expect(fromFile.refresh.interval == .every(.seconds(60)))
        #expect(fromFile.refresh.jitter == 0.25)
        #expect(fromFile.refresh.when == .subscribed)
        #expect(fromFile.refresh.retryMax == .seconds(30))
        #expect(!fromFile.watchFile)

        let flags = try resolve([
            "--config", config, "--refresh-interval", "2.5", "--refresh-jitter", "0", "--refresh-when", "always", "--retry-max", "600",
            "--watch-file",
        ])
        #expect(flags.refresh.interval == .every(.milliseconds(2500)))
        #expect(flags.refresh.jitter == 0)
        #expect(flags.refresh.when == .always)
        #expect(flags.refresh.retryMax == .seconds(600))
        #expect(flags.watchFile)
    }

    @Test(
        "refreshInterval: auto, 0 for off, or seconds; as a flag or in the file",
        arguments: [
            (["--refresh-interval", "auto"], RefreshPolicy.Interval.auto), (["--refresh-interval", "0"], .off),
            (["--refresh-interval", "0.1"], .every(.milliseconds(100))), (["--refresh-interval", "31536000"], .every(.seconds(31_536_000))),
        ])
    func intervals(_ arguments: [String], _ expected: RefreshPolicy.Interval) throws {
        #expect(try resolve(arguments).refresh.interval == expected)
    }

    @Test("\"auto\" and 0 in the config file")
    func intervalsInFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        #expect(try resolve(["--config", directory.write("a.json", #"{"refreshInterval": "auto"}"#)]).refresh.interval == .auto)
        #expect(try resolve(["--config", directory.write("b.json", #"{"refreshInterval": 0}"#)]).refresh.interval == .off)
    }

    @Test(
        "a value out of range names the flag and what it takes",
        arguments: [
            (
                ["--refresh-interval", "0.05"],
                "--refresh-interval \"0.05\" must be auto, 0 (off) or a number of seconds between 0.1 and 31536000 (default auto)"
            ),
            (
                ["--refresh-interval", "soon"],
                "--refresh-interval \"soon\" must be auto, 0 (off) or a number of seconds between 0.1 and 31536000 (default auto)"
            ),
            (["--refresh-jitter", "0.95"], "--refresh-jitter 0.95 must be a fraction between 0 and 0.9 (default 0.1)"),
            (["--refresh-jitter=-0.1"], "--refresh-jitter -0.1 must be a fraction between 0 and 0.9 (default 0.1)"),
            (["--refresh-when", "sometimes"], "--refresh-when \"sometimes\" is not one of always, subscribed"),
            (["--retry-max", "0"], "--retry-max 0 must be a number of seconds between 1 and 86400 (default 300)"),
        ])
    func invalid(_ arguments: [String], _ message: String) {
        #expect(configurationError(arguments)?.description == message)
    }

    @Test("a wrong type in the config file names the key")
    func wrongTypes() {
        #expect(
            parseError(#"{"refreshInterval": true}"#)?.description.contains(#""refreshInterval" must be a number of seconds or "auto", not true"#)
                == true)
        #expect(parseError(#"{"refreshJitter": "0.1"}"#)?.description.contains(#""refreshJitter" must be a number, such as 0.1, not "0.1""#) == true)
        #expect(parseError(#"{"watchFile": "yes"}"#)?.description.contains(#""watchFile" must be true or false"#) == true)
    }
}
