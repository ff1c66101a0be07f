import ArgumentParser
import DepotDaemon
import DepotPlatform
import DepotServer
import DepotSources
import DepotTestSupport
import Logging
import Testing

@Suite("DaemonSettings.resolve")
struct DaemonSettingsTests {
    @Test("defaults when nothing is given")
    func defaults() throws {
        let settings = try resolve([], environment: [:], userID: 1000)
        #expect(settings.socketPath == "/tmp/depot-1000/depotd.sock")
        #expect(settings.source == nil)
        #expect(settings.stateDirectory == "/tmp/depot-1000/.local/state/depot")
        #expect(settings.idField == "id")
        #expect(settings.connectionLimits.maxMessageBytes == 1_048_576)
        #expect(settings.connectionLimits.subscriberQueueLimit == 256)
        #expect(settings.connectionLimits.subscriberQueueBytes == 8_388_608)
        #expect(settings.connectionLimits.replayStates == 1024)
        #expect(settings.connectionLimits.replayBytes == 67_108_864)
        #expect(settings.socketMode == 0o660)
        #expect(settings.logLevel == .info)
        #expect(settings.initialLoad)
    }

    @Test(
        "default socket and state directory come from RuntimePaths for the given environment and uid",
        arguments: [
            ([:], 0, "/run/depot/depotd.sock", "/var/lib/depot"),
            (["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"], 1000, "/run/user/1000/depot/depotd.sock", "/home/u/.local/state/depot"),
            (["RUNTIME_DIRECTORY": "/run/depot", "STATE_DIRECTORY": "/var/lib/depot"], 999, "/run/depot/depotd.sock", "/var/lib/depot"),
        ] as [([String: String], UInt32, String, String)])
    func defaultPaths(environment: [String: String], userID: UInt32, socket: String, state: String) throws {
        let settings = try resolve([], environment: environment, userID: userID)
        let paths = RuntimePaths(environment: environment, userID: userID)
        #expect(settings.socketPath == socket)
        #expect(settings.socketPath == paths.defaultSocketPath)
        #expect(settings.stateDirectory == state)
        #expect(settings.stateDirectory == paths.defaultStateDirectory)
    }

    struct Layers: Sendable, CustomTestStringConvertible {
        let flag: Bool
        let environment: Bool
        let file: Bool
        var testDescription: String {
            [flag ? "flag" : nil, environment ? "env" : nil, file ? "file" : nil].compactMap { $0 }.joined(separator: "+").nonEmpty ?? "nothing"
        }
    }

    static let allLayers: [Layers] = [false, true].flatMap { flag in
        [false, true].flatMap { environment in [false, true].map { file in Layers(flag: flag, environment: environment, file: file) } }
    }

    @Test("socket: flag beats DEPOT_SOCKET beats the config file beats the default", arguments: allLayers)
    func socketPrecedence(_ layers: Layers) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", #"{"socket": "/from/file.sock"}"#)
        var arguments: [String] = []
        if layers.flag { arguments += ["--socket", "/from/flag.sock"] }
        if layers.file { arguments += ["--config", config] }
        let environment = layers.environment ? ["DEPOT_SOCKET": "/from/env.sock"] : [:]

        let settings = try resolve(arguments, environment: environment)

        let expected =
            layers.flag ? "/from/flag.sock" : layers.environment ? "/from/env.sock" : layers.file ? "/from/file.sock" : "/tmp/depot-1000/depotd.sock"
        #expect(settings.socketPath == expected)
    }

    @Test("source: flag beats DEPOT_SOURCE beats the config file beats the default (nil)", arguments: allLayers)
    func sourcePrecedence(_ layers: Layers) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", #"{"source": "file:/from/file.json"}"#)
        var arguments: [String] = []
        if layers.flag { arguments += ["--source", "file:/from/flag.json"] }
        if layers.file { arguments += ["--config", config] }
        let environment = layers.environment ? ["DEPOT_SOURCE": "file:/from/env.json"] : [:]

        let settings = try resolve(arguments, environment: environment)

        let expected: DepotSources.SourceLocation? =
            layers.flag
            ? .file(path: "/from/flag.json")
            : layers.environment
                ? .file(path: "/from/env.json")
                : layers.file ? .file(path: "/from/file.json") : nil
        #expect(settings.source == expected)
    }

    @Test("empty DEPOT_SOCKET and DEPOT_SOURCE are ignored")
    func emptyEnvironmentIgnored() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", #"{"socket": "/from/file.sock", "source": "file:/from/file.json"}"#)

        let withFile = try resolve(["--config", config], environment: ["DEPOT_SOCKET": "", "DEPOT_SOURCE": ""])
        #expect(withFile.socketPath == "/from/file.sock")
        #expect(withFile.source == .file(path: "/from/file.json"))

        let withoutFile = try resolve([], environment: ["DEPOT_SOCKET": "", "DEPOT_SOURCE": ""])
        #expect(withoutFile.socketPath == "/tmp/depot-1000/depotd.sock")
        #expect(withoutFile.source == nil)
    }

    @Test("every setting is taken from the config file when no flag is given")
    func everythingFromFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depot.json",
            """
            {"socket": "/s.sock", "source": "file:items.json", "idField": "sku", "maxMessageBytes": 4096,
             "subscriberQueue": 8, "subscriberQueueBytes": 65536, "replayStates": 16, "replayBytes": 0, "socketMode": "0600",
             "logLevel": "debug", "initialLoad": false}
            """)

        let settings = try resolve(["--config", config], workingDirectory: "/srv/depot")

        #expect(settings.socketPath == "/s.sock")
        #expect(settings.source == .file(path: directory.file("items.json")))
        #expect(settings.idField == "sku")
        #expect(settings.connectionLimits.maxMessageBytes == 4096)
        #expect(settings.connectionLimits.subscriberQueueLimit == 8)
        #expect(settings.connectionLimits.subscriberQueueBytes == 65536)
        #expect(settings.connectionLimits.replayStates == 16)
        #expect(settings.connectionLimits.replayBytes == 0)
        #expect(settings.socketMode == 0o600)
        #expect(settings.logLevel == .debug)
        #expect(!settings.initialLoad)
    }

    @Test("every flag beats the config file")
    func flagsBeatFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depot.json",
            """
            {"socket": "/s.sock", "source": "file:/f.json", "idField": "sku", "maxMessageBytes": 4096,
             "subscriberQueue": 8, "subscriberQueueBytes": 65536, "replayStates": 16, "replayBytes": 0, "socketMode": "0600",
             "logLevel": "debug", "initialLoad": true}
            """)

        let settings = try resolve([
            "--config", config, "--socket", "/flag.sock", "--source", "file:///flag.json", "--id-field", "key",
            "--max-message-bytes", "64", "--subscriber-queue", "1", "--subscriber-queue-bytes", "2048", "--replay-states", "3",
            "--replay-bytes", "4096", "--socket-mode", "640",
            "--log-level", "ERROR", "--no-initial-load",
        ])

        #expect(settings.socketPath == "/flag.sock")
        #expect(settings.source == .file(path: "/flag.json"))
        #expect(settings.idField == "key")
        #expect(settings.connectionLimits.maxMessageBytes == 64)
        #expect(settings.connectionLimits.subscriberQueueLimit == 1)
        #expect(settings.connectionLimits.subscriberQueueBytes == 2048)
        #expect(settings.connectionLimits.replayStates == 3)
        #expect(settings.connectionLimits.replayBytes == 4096)
        #expect(settings.socketMode == 0o640)
        #expect(settings.logLevel == .error)
        #expect(!settings.initialLoad)
    }

    @Test("the per-connection and memory limits: defaults, from the config file, a flag beats the file, and a value out of range is refused")
    func connectionLimits() throws {
        let defaults = try resolve([]).connectionLimits
        #expect(defaults.maxPendingRequests == 64 && defaults.maxSubscriptions == 64)
        #expect(defaults.maxUnreadAnswerBytes == 64 << 20)
        #expect(defaults.maxMemoryPerUser == 192 << 20)
        #expect(defaults.maxUnfinishedLineBytes == 512 << 20)

        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write(
            "depot.json",
            """
            {"maxPendingRequests": 8, "maxSubscriptions": 2, "maxUnreadAnswerBytes": 100000, "maxMemoryPerUser": 200000,
             "maxUnfinishedLineBytes": 300000}
            """)
        let fromFile = try resolve(["--config", config]).connectionLimits
        #expect(fromFile.maxPendingRequests == 8 && fromFile.maxSubscriptions == 2)
        #expect(fromFile.maxUnreadAnswerBytes == 100_000 && fromFile.maxMemoryPerUser == 200_000 && fromFile.maxUnfinishedLineBytes == 300_000)

        let flags = try resolve([
            "--config", config, "--max-pending-requests", "1", "--max-subscriptions", "65536", "--max-unread-answer-bytes", "65536",
            "--max-memory-per-user", "1099511627776", "--max-unfinished-line-bytes", "70000",
        ]).connectionLimits
        #expect(flags.maxPendingRequests == 1 && flags.maxSubscriptions == 65536)
        #expect(flags.maxUnreadAnswerBytes == 65536 && flags.maxMemoryPerUser == 1 << 40 && flags.maxUnfinishedLineBytes == 70000)

        #expect(
            configurationError(["--max-memory-per-user", "1000"])
                == ConfigurationError("--max-memory-per-user 1000 must be an integer between 65536 and 1099511627776 (default 201326592)"))
        #expect(
            configurationError(["--max-pending-requests", "0"])
                == ConfigurationError("--max-pending-requests 0 must be an integer between 1 and 65536 (default 64)"))
    }

    @Test("initial load: on by default, off with --no-initial-load or \"initialLoad\": false")
    func initialLoad() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let off = directory.write("off.json", #"{"initialLoad": false}"#)
        let on = directory.write("on.json", #"{"initialLoad": true}"#)

        #expect(try resolve([]).initialLoad)
        #expect(try !resolve(["--no-initial-load"]).initialLoad)
        #expect(try !resolve(["--config", off]).initialLoad)
        #expect(try resolve(["--config", on]).initialLoad)
        #expect(try !resolve(["--config", on, "--no-initial-load"]).initialLoad)
    }

    @Test("--initial-load overrides \"initialLoad\": false from the config file; the last of the two flags wins")
    func initialLoadFlag() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let off = directory.write("off.json", #"{"initialLoad": false}"#)

        #expect(try resolve(["--config", off, "--initial-load"]).initialLoad)
        #expect(try resolve(["--initial-load"]).initialLoad)
        #expect(try resolve(["--no-initial-load", "--initial-load"]).initialLoad)
        #expect(try !resolve(["--initial-load", "--no-initial-load"]).initialLoad)
        #expect(try DaemonOptions.parse([]).initialLoad == nil)
        #expect(try DaemonOptions.parse(["--initial-load"]).initialLoad == true)
        #expect(try DaemonOptions.parse(["--no-initial-load"]).initialLoad == false)
    }

    @Test("a relative file source from the flag or the environment is resolved against the given working directory")
    func relativeSource() throws {
        #expect(try resolve(["--source", "file:items.json"], workingDirectory: "/srv").source == .file(path: "/srv/items.json"))
        #expect(try resolve([], environment: ["DEPOT_SOURCE": "file:env.json"], workingDirectory: "/srv/").source == .file(path: "/srv/env.json"))
        #expect(try resolve(["--source", "file:/abs.json"], workingDirectory: "/srv").source == .file(path: "/abs.json"))
    }

    @Test("a relative file source in the config file is resolved against the config file's directory")
    func relativeSourceInConfigFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Directories.create(directory.file("etc"), mode: 0o755)
        let config = directory.write("etc/depot.json", #"{"source": "file:./data/file.json"}"#)
        let plain = directory.write("etc/plain.json", #"{"source": "file:items.json"}"#)
        let absolute = directory.write("etc/absolute.json", #"{"source": "file:/abs.json"}"#)

        #expect(try resolve(["--config", config], workingDirectory: "/srv").source == .file(path: directory.file("etc/data/file.json")))
        #expect(try resolve(["--config", plain], workingDirectory: "/srv").source == .file(path: directory.file("etc/items.json")))
        #expect(try resolve(["--config", absolute], workingDirectory: "/srv").source == .file(path: "/abs.json"))
        // The flag and the environment stay relative to the working directory, config file or not.
        #expect(try resolve(["--config", config, "--source", "file:items.json"], workingDirectory: "/srv").source == .file(path: "/srv/items.json"))
        #expect(
            try resolve(["--config", config], environment: ["DEPOT_SOURCE": "file:env.json"], workingDirectory: "/srv").source
                == .file(path: "/srv/env.json"))
    }

    @Test("a relative --config, and a relative source in it, are resolved from the working directory")
    func relativeConfigWithRelativeSource() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Directories.create(directory.file("conf"), mode: 0o755)
        directory.write("conf/depot.json", #"{"source": "file:items.json"}"#)

        let settings = try resolve(["--config", "conf/depot.json"], workingDirectory: directory.path + "/")

        #expect(settings.source == .file(path: directory.file("conf/items.json")))
    }

    @Test(
        "socket modes in octal, with or without a leading zero",
        arguments: [
            ("0660", 0o660), ("660", 0o660), ("0600", 0o600), ("0777", 0o777), ("0", 0), ("0000", 0), ("755", 0o755), ("7", 0o7), ("00", 0),
        ] as [(String, UInt32)])
    func socketModes(text: String, mode: UInt32) throws {
        #expect(try resolve(["--socket-mode", text]).socketMode == mode)
    }

    @Test(
        "log levels, in any case",
        arguments: [
            ("trace", Logger.Level.trace), ("debug", .debug), ("info", .info), ("notice", .notice),
            ("warning", .warning), ("error", .error), ("critical", .critical), ("INFO", .info), ("Warning", .warning),
        ])
    func logLevels(text: String, level: Logger.Level) throws {
        #expect(try resolve(["--log-level", text]).logLevel == level)
    }

    @Test("the smallest and the largest accepted limits")
    func limitBounds() throws {
        let smallest = try resolve([
            "--max-message-bytes", "64", "--subscriber-queue", "1", "--subscriber-queue-bytes", "1024", "--replay-states", "1", "--replay-bytes", "0",
        ])
        #expect(smallest.connectionLimits.replayStates == 1)
        #expect(smallest.connectionLimits.replayBytes == 0)
        #expect(smallest.connectionLimits.maxMessageBytes == 64)
        #expect(smallest.connectionLimits.subscriberQueueLimit == 1)
        #expect(smallest.connectionLimits.subscriberQueueBytes == 1024)
        let largest = try resolve([
            "--max-message-bytes", "1073741824", "--subscriber-queue", "1048576", "--subscriber-queue-bytes", "1099511627776",
        ])
        #expect(largest.connectionLimits.maxMessageBytes == 1_073_741_824)
        #expect(largest.connectionLimits.subscriberQueueLimit == 1_048_576)
        #expect(largest.connectionLimits.subscriberQueueBytes == 1_099_511_627_776)
        #expect(
            throws: ConfigurationError(
                "--subscriber-queue-bytes 1023 must be an integer between 1024 and 1099511627776 (default 8388608)")
        ) {
            try resolve(["--subscriber-queue-bytes", "1023"])
        }
    }

    static func invalidModeMessage(_ text: String, from subject: String = "--socket-mode") -> String {
        "\(subject) \"\(text)\" is not an octal permission between 0000 and 0777, such as 0660"
    }

    static let levels = "trace, debug, info, notice, warning, error, critical"

    @Test(
        "invalid flags give an exact ConfigurationError that names the flag",
        arguments: [
            (["--socket-mode", "999"], invalidModeMessage("999")),
            (["--socket-mode", "rw"], invalidModeMessage("rw")),
            (["--socket-mode", "01777"], invalidModeMessage("01777")),
            (["--socket-mode", "1000"], invalidModeMessage("1000")),
            (["--socket-mode", ""], invalidModeMessage("")),
            (["--socket-mode", "0o660"], invalidModeMessage("0o660")),
            (["--socket-mode=-1"], invalidModeMessage("-1")),
            (["--socket-mode=+660"], invalidModeMessage("+660")),
            (["--socket-mode=-0"], invalidModeMessage("-0")),
            (["--socket-mode", "00660"], invalidModeMessage("00660")),
            (["--socket-mode", "0x1A"], invalidModeMessage("0x1A")),
            (["--socket-mode", " 660"], invalidModeMessage(" 660")),
            (["--socket-mode", "６６０"], invalidModeMessage("６６０")),
            (["--socket-mode", "0800"], invalidModeMessage("0800")),
            (["--log-level", "loud"], #"--log-level "loud" is not one of \#(levels)"#),
            (["--log-level", ""], #"--log-level "" is not one of \#(levels)"#),
            (["--subscriber-queue", "0"], "--subscriber-queue 0 must be an integer between 1 and 1048576 (default 256)"),
            (["--subscriber-queue=-5"], "--subscriber-queue -5 must be an integer between 1 and 1048576 (default 256)"),
            (["--subscriber-queue", "1048577"], "--subscriber-queue 1048577 must be an integer between 1 and 1048576 (default 256)"),
            (["--max-message-bytes", "10"], "--max-message-bytes 10 must be an integer between 64 and 1073741824 (default 1048576)"),
            (["--max-message-bytes", "63"], "--max-message-bytes 63 must be an integer between 64 and 1073741824 (default 1048576)"),
            (["--max-message-bytes", "1073741825"], "--max-message-bytes 1073741825 must be an integer between 64 and 1073741824 (default 1048576)"),
            (
                ["--max-message-bytes", "9223372036854775807"],
                "--max-message-bytes 9223372036854775807 must be an integer between 64 and 1073741824 (default 1048576)"
            ),
            (["--id-field", ""], "--id-field is empty; give the member that holds each item's id, such as id"),
            (["--socket", ""], "--socket is empty; give the socket's path, such as /run/depot/depotd.sock"),
            (["--config", ""], "--config is empty; give the path of a JSON config file"),
            (["--source", ""], "--source is empty: give file:PATH or an https:// URL"),
            (
                ["--source", "https://u:pw@x/items"],
                #"--source "https://…@x/items" has a user name or password in it; remove it from the URL and send credentials as a header read from a file ("headerFiles" or "headerCredentials" in the config file)"#
            ),
            (
                ["--source", "items.json"],
                #"--source "items.json" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream; did you mean file:items.json?"#
            ),
            (["--source", "file:"], #"--source "file:" names no file; write file:PATH, as in file:/var/lib/depot/items.json"#),
            (["--source", "file://"], #"--source "file://" names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json"#),
            (
                ["--source", "file:///a%zz"],
                #"--source "file:///a%zz" has an invalid percent escape "%zz": % must be followed by two hex digits; write %25 for a % itself"#
            ),
            (
                ["--source", "file://rel/items.json"],
                #"--source "file://rel/items.json" needs an absolute path after file://, as in file:///var/lib/depot/items.json; for a relative path write file:rel/items.json"#
            ),
        ] as [([String], String)])
    func invalidFlags(arguments: [String], message: String) {
        #expect(configurationError(arguments) == ConfigurationError(message))
    }

    @Test("invalid values from the environment name the variable")
    func invalidFromEnvironment() throws {
        #expect(
            configurationError([], environment: ["DEPOT_SOURCE": "ftp://host/items.json"])
                == ConfigurationError(
                    #"DEPOT_SOURCE "ftp://host/items.json" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream"#
                ))
        #expect(
            configurationError([], environment: ["DEPOT_SOURCE": "file://"])
                == ConfigurationError(#"DEPOT_SOURCE "file://" names no file; write file:///absolute/path, as in file:///var/lib/depot/items.json"#))
    }

    @Test(
        "invalid values from the config file name the file and the key",
        arguments: [
            (#"{"socketMode": "999"}"#, #""socketMode" "999" is not an octal permission between 0000 and 0777, such as 0660"#),
            (#"{"socketMode": "+660"}"#, #""socketMode" "+660" is not an octal permission between 0000 and 0777, such as 0660"#),
            (#"{"logLevel": "loud"}"#, #""logLevel" "loud" is not one of \#(levels)"#),
            (#"{"subscriberQueue": 0}"#, #""subscriberQueue" 0 must be an integer between 1 and 1048576 (default 256)"#),
            (#"{"subscriberQueue": 2000000}"#, #""subscriberQueue" 2000000 must be an integer between 1 and 1048576 (default 256)"#),
            (#"{"maxMessageBytes": 10}"#, #""maxMessageBytes" 10 must be an integer between 64 and 1073741824 (default 1048576)"#),
            (#"{"maxMessageBytes": -1}"#, #""maxMessageBytes" -1 must be an integer between 64 and 1073741824 (default 1048576)"#),
            (#"{"idField": ""}"#, #""idField" is empty; give the member that holds each item's id, such as id"#),
            (#"{"socket": ""}"#, #""socket" is empty; give the socket's path, such as /run/depot/depotd.sock"#),
            (#"{"source": ""}"#, #""source" is empty: give file:PATH or an https:// URL"#),
            (
                #"{"source": "plain/path"}"#,
                #""source" "plain/path" is not supported: use file:PATH for a JSON file, an http:// or https:// URL, a postgres:// URI, or script:PATH for a stream; did you mean file:plain/path?"#
            ),
        ])
    func invalidFromConfigFile(text: String, problem: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", text)

        #expect(configurationError(["--config", config]) == ConfigurationError("config file \(config): \(problem)"))
    }

    @Test("a relative --config is named in errors by its resolved path")
    func invalidFromRelativeConfigFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        directory.write("depot.json", #"{"socketMode": "999"}"#)

        #expect(
            configurationError(["--config", "depot.json"], workingDirectory: directory.path)
                == ConfigurationError(Self.invalidModeMessage("999", from: "config file \(directory.file("depot.json")): \"socketMode\"")))
    }

    @Test("a valid flag hides an invalid value in a lower layer")
    func validFlagHidesInvalidFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("depot.json", #"{"socketMode": "999", "logLevel": "loud", "source": "ftp://x"}"#)
        let settings = try resolve(
            ["--config", config, "--socket-mode", "0600", "--log-level", "debug", "--source", "file:/ok.json"],
            environment: ["DEPOT_SOURCE": "ftp://also-bad"])
        #expect(settings.socketMode == 0o600)
        #expect(settings.logLevel == .debug)
        #expect(settings.source == .file(path: "/ok.json"))
    }

    @Test("a missing or broken config file stops resolution with the file's error")
    func brokenConfigFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("missing.json")
        #expect(configurationError(["--config", missing]) == ConfigurationError("config file: cannot read \(missing): No such file or directory"))

        let typo = directory.write("typo.json", #"{"sockett": "/x"}"#)
        #expect(
            configurationError(["--config", typo, "--socket", "/flag.sock"])
                == ConfigurationError(
                    #"config file \#(typo) has an unknown key "sockett"; the keys are socket, source, idField, maxMessageBytes, maxBatchRequests, maxBatchAnswerBytes, maxConnections, maxConnectionsPerUser, partialLineTimeout, maxPendingRequests, maxSubscriptions, maxUnreadAnswerBytes, maxMemoryPerUser, maxUnfinishedLineBytes, subscriberQueue, subscriberQueueBytes, replayStates, replayBytes, socketMode, logLevel, initialLoad, startupStrategy, cache, refreshInterval, refreshJitter, refreshWhen, retryMax, watchFile, itemsPath, deleteURL, putURL, patchURL, itemSchema, maxItemBytes, headers, headerFiles, headerCredentials, connectTimeout, requestTimeout, maxResponseBytes, maxRedirects, postgresPasswordFile, postgresReplicas, access"#
                ))
    }

    @Test("--postgres-replica: repeated, in order, for a postgres:// source of the same table; refused otherwise, saying why")
    func postgresReplicas() throws {
        let source = "postgres://depot@db/fleet?table=items"
        let settings = try resolve([
            "--source", source, "--postgres-replica", "postgres://depot@r1/fleet", "--postgres-replica", "postgres://depot@r2/fleet",
        ])
        #expect(
            settings.postgresReplicas.map(\.description) == [
                "postgres://depot@r1:5432/fleet?table=items", "postgres://depot@r2:5432/fleet?table=items",
            ])
        #expect(try resolve(["--source", source]).postgresReplicas.isEmpty)
        let wrongSource = configurationError(["--source", "file:/srv/items.json", "--postgres-replica", "postgres://depot@r1/fleet"])
        #expect(wrongSource?.description.contains("only a postgres:// source reads from") == true, "\(String(describing: wrongSource))")
        let otherTable = configurationError(["--source", source, "--postgres-replica", "postgres://depot@r1/fleet?table=other"])
        #expect(otherTable?.description.contains("a replica serves the same table") == true, "\(String(describing: otherTable))")
        let malformed = configurationError(["--source", source, "--postgres-replica", "postgres://depot:secret@r1/fleet"])
        #expect(malformed?.description.contains("password") == true && malformed?.description.contains("secret") == false)
        let bounded = try resolve(["--source", source, "--postgres-replica", "postgres://depot@r1/fleet?max_lag=0.5"])
        #expect(bounded.postgresReplicas.map(\.maxLag) == [.milliseconds(500)])
        let lagOnSource = configurationError(["--source", source + "&max_lag=2", "--postgres-replica", "postgres://depot@r1/fleet"])
        #expect(
            lagOnSource?.description.contains("has max_lag, which bounds a replica's lag: give it in a --postgres-replica URI") == true,
            "\(String(describing: lagOnSource))")
    }

    @Test("a relative --config is read from the given working directory, like a relative source")
    func relativeConfigPath() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        directory.write("relative-depot-config.json", #"{"socket": "/from/file.sock"}"#)

        let settings = try resolve(["--config", "relative-depot-config.json"], workingDirectory: directory.path)

        #expect(settings.socketPath == "/from/file.sock")
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
