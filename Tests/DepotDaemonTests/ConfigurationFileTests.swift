import ArgumentParser
import DepotDaemon
import DepotTestSupport
import Foundation
import Testing

@Suite("ConfigurationFile")
struct ConfigurationFileTests {
    static let keysList =
        "socket, source, idField, maxMessageBytes, maxBatchRequests, maxBatchAnswerBytes, maxConnections, maxConnectionsPerUser, partialLineTimeout, maxPendingRequests, maxSubscriptions, maxUnreadAnswerBytes, maxMemoryPerUser, maxUnfinishedLineBytes, subscriberQueue, subscriberQueueBytes, replayStates, replayBytes, socketMode, logLevel, initialLoad, startupStrategy, cache, "
        + "refreshInterval, refreshJitter, refreshWhen, retryMax, watchFile, itemsPath, deleteURL, putURL, patchURL, itemSchema, maxItemBytes, headers, headerFiles, headerCredentials, connectTimeout, requestTimeout, maxResponseBytes, maxRedirects, postgresPasswordFile, postgresReplicas, access"

    @Test("all keys are parsed")
    func allKeys() throws {
        let text = """
            {"socket": "/run/depot/depotd.sock", "source": "file:/srv/items.json", "idField": "sku",
             "maxMessageBytes": 1048576, "subscriberQueue": 256, "socketMode": "0660", "logLevel": "info",
             "initialLoad": false}
            """
        let file = try ConfigurationFile(parsing: Array(text.utf8), path: "/etc/depot.json")

        var expected = ConfigurationFile()
        expected.socket = "/run/depot/depotd.sock"
        expected.source = "file:/srv/items.json"
        expected.idField = "sku"
        expected.maxMessageBytes = 1_048_576
        expected.subscriberQueue = 256
        expected.socketMode = "0660"
        expected.logLevel = "info"
        expected.initialLoad = false
        #expect(file == expected)
    }

    @Test("every key is optional: an empty object sets nothing")
    func emptyObject() throws {
        #expect(try ConfigurationFile(parsing: Array(" {}\n".utf8), path: "/etc/depot.json") == ConfigurationFile())
    }

    @Test("values are taken as given: negative numbers and odd strings are checked later, by resolve")
    func valuesAsGiven() throws {
        let file = try ConfigurationFile(
            parsing: Array(#"{"maxMessageBytes": -1, "subscriberQueue": 0, "socketMode": "rw", "idField": ""}"#.utf8), path: "/c.json")
        #expect(file.maxMessageBytes == -1)
        #expect(file.subscriberQueue == 0)
        #expect(file.socketMode == "rw")
        #expect(file.idField == "")
    }

    @Test("a leading byte order mark is accepted")
    func byteOrderMark() throws {
        let file = try ConfigurationFile(parsing: [0xEF, 0xBB, 0xBF] + Array(#"{"socket": "/s"}"#.utf8), path: "/c.json")
        #expect(file.socket == "/s")
    }

    @Test(
        "an unknown key is named, with the list of keys",
        arguments: [
            (#"{"socket": "/x", "sockett": "/y"}"#, "sockett"),
            (#"{"id_field": "sku"}"#, "id_field"),
            (#"{"IdField": "sku"}"#, "IdField"),
            (#"{"initial-load": false}"#, "initial-load"),
            (#"{"": 1}"#, ""),
        ])
    func unknownKey(text: String, key: String) {
        #expect(
            parseError(text, path: "/etc/depot.json")
                == ConfigurationError("config file /etc/depot.json has an unknown key \"\(key)\"; the keys are \(Self.keysList)"))
    }

    @Test(
        "a value of the wrong type names the key and what was found",
        arguments: [
            (#"{"socket": 1}"#, #""socket" must be a string, not number"#),
            (#"{"source": ["file:/x"]}"#, #""source" must be a string, not array"#),
            (#"{"idField": null}"#, #""idField" must be a string, not null"#),
            (#"{"socketMode": 660}"#, #""socketMode" must be a string, not number"#),
            (#"{"logLevel": true}"#, #""logLevel" must be a string, not boolean"#),
            (#"{"maxMessageBytes": "1048576"}"#, #""maxMessageBytes" must be an integer, not "1048576""#),
            (#"{"maxMessageBytes": 1.5}"#, #""maxMessageBytes" must be an integer, not 1.5"#),
            (#"{"subscriberQueue": 1e3}"#, #""subscriberQueue" must be an integer, not 1e3"#),
            (#"{"subscriberQueue": {"n": 1}}"#, #""subscriberQueue" must be an integer, not {"n":1}"#),
            (#"{"initialLoad": "false"}"#, #""initialLoad" must be true or false, not "false""#),
            (#"{"initialLoad": 0}"#, #""initialLoad" must be true or false, not 0"#),
        ])
    func wrongType(text: String, problem: String) {
        #expect(parseError(text, path: "/etc/depot.json") == ConfigurationError("config file /etc/depot.json: \(problem)"))
    }

    @Test(
        "a document that is not an object",
        arguments: [
            ("[]", "array"), (#""socket""#, "string"), ("42", "number"), ("null", "null"), ("false", "boolean"),
        ])
    func notAnObject(text: String, typeName: String) {
        #expect(
            parseError(text, path: "/etc/depot.json")
                == ConfigurationError("config file /etc/depot.json must hold a JSON object of settings, not \(typeName)"))
    }

    @Test(
        "invalid JSON names the file, the problem, and its line and column",
        arguments: [
            (#"{"socket": }"#, "unexpected character '}' at byte 11 (line 1, column 12)"),
            (#"{"socket": "/x",}"#, "unexpected character '}' at byte 16 (line 1, column 17)"),
            ("{", "unexpected end of text at byte 1 (line 1, column 2)"),
            ("", "no JSON value in the text (empty or only whitespace) (line 1, column 1)"),
            ("{} {}", "unexpected content after the JSON value at byte 3 (line 1, column 4)"),
            ("{\n  \"idField\": \"ü\"\n  \"socket\": \"/s\"\n}", "unexpected character '\"' at byte 22 (line 3, column 3)"),
            ("{\"idField\": \"Nidoran♀\" \"x\"}", "unexpected character '\"' at byte 25 (line 1, column 24)"),
        ])
    func invalidJSON(text: String, problem: String) {
        #expect(parseError(text, path: "/etc/depot.json") == ConfigurationError("config file /etc/depot.json is not valid JSON: \(problem)"))
    }

    @Test("a leading byte order mark is not counted in the column")
    func invalidJSONAfterByteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{,}".utf8)
        #expect(throws: ConfigurationError("config file /c.json is not valid JSON: unexpected character ',' at byte 4 (line 1, column 2)")) {
            try ConfigurationFile(parsing: bytes, path: "/c.json")
        }
    }

    @Test(
        "a key given twice is an error naming it, even with the same value",
        arguments: [
            (#"{"socket": "/a", "socket": "/b"}"#, "socket"),
            (#"{"initialLoad": true, "logLevel": "info", "initialLoad": true}"#, "initialLoad"),
            (#"{"maxMessageBytes": 64, "subscriberQueue": 1, "subscriberQueue": 1, "maxMessageBytes": 64}"#, "subscriberQueue"),
        ])
    func duplicateKey(text: String, key: String) {
        #expect(
            parseError(text, path: "/etc/depot.json")
                == ConfigurationError("config file /etc/depot.json has the key \"\(key)\" more than once; keep only one"))
    }

    @Test(
        "an integer too large to hold gives the setting's range, not \"must be an integer\"",
        arguments: [
            (
                #"{"maxMessageBytes": 99999999999999999999}"#,
                #""maxMessageBytes" 99999999999999999999 must be an integer between 64 and 1073741824 (default 1048576)"#
            ),
            (
                #"{"subscriberQueue": -99999999999999999999}"#,
                #""subscriberQueue" -99999999999999999999 must be an integer between 1 and 1048576 (default 256)"#
            ),
        ])
    func integerTooLarge(text: String, problem: String) {
        #expect(parseError(text, path: "/etc/depot.json") == ConfigurationError("config file /etc/depot.json: \(problem)"))
    }

    @Test("reads a real file")
    func contentsOfFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("depot.json", #"{"socket": "/s.sock", "initialLoad": true}"#)

        let file = try ConfigurationFile(contentsOf: path)

        #expect(file.socket == "/s.sock")
        #expect(file.initialLoad == true)
        #expect(file.source == nil)
    }

    @Test("a missing file names the path")
    func missingFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("missing.json")

        #expect(throws: ConfigurationError("config file: cannot read \(path): No such file or directory")) {
            try ConfigurationFile(contentsOf: path)
        }
    }

    @Test("a directory instead of a file names the path")
    func directoryInsteadOfFile() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }

        #expect(throws: ConfigurationError("config file: cannot read \(directory.path): it is not a regular file")) {
            try ConfigurationFile(contentsOf: directory.path)
        }
    }

    @Test("errors in a real file name its path")
    func errorsNameTheRealPath() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("depot.json", #"{"logLevel": 3}"#)

        #expect(throws: ConfigurationError("config file \(path): \"logLevel\" must be a string, not number")) {
            try ConfigurationFile(contentsOf: path)
        }
    }

    @Test("postgresReplicas is an array of strings, in order; anything else is refused, saying what it must be")
    func postgresReplicas() throws {
        let file = try ConfigurationFile(parsing: Array(#"{"postgresReplicas": ["postgres://r1/db", "postgres://r2/db"]}"#.utf8), path: "/etc/d.json")
        #expect(file.postgresReplicas == ["postgres://r1/db", "postgres://r2/db"])
        #expect(
            parseError(#"{"postgresReplicas": "postgres://r1/db"}"#, path: "/etc/d.json")
                == ConfigurationError(#"config file /etc/d.json: "postgresReplicas" must be an array of strings, not string"#))
        #expect(
            parseError(#"{"postgresReplicas": ["postgres://r1/db", 2]}"#, path: "/etc/d.json")
                == ConfigurationError(#"config file /etc/d.json: "postgresReplicas" must hold strings only, not number"#))
    }

    @Test("the documented keys")
    func keys() {
        #expect(ConfigurationFile.keys.joined(separator: ", ") == Self.keysList)
    }

    @Test("--config's help, which depotd.json(5) is made from, names every key a flag sets, and the others too")
    func keysInHelp() throws {
        let text = DaemonOptions.helpMessage().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let start = try #require(text.firstRange(of: "camelCase ("))
        let listed = text[start.upperBound...].prefix { $0 != ")" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let others = ["headers", "headerFiles", "headerCredentials", "access"]
        #expect(listed.count + others.count == ConfigurationFile.keys.count)
        #expect(Set(listed + others) == Set(ConfigurationFile.keys))
        for key in others {
            #expect(text.contains(key), "\(key) is named in --config's help")
        }
    }
}
