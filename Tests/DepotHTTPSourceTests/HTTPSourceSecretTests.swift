import DepotCore
import DepotHTTPSource
import DepotSources
import DepotTestSupport
import Logging
import Testing

@Suite("HTTPSource: headers and secrets")
struct HTTPSourceSecretTests {
    static let token = "Bearer s3cr3t-t0ken-4c2f"

    /// Every way the token could leak: the logs (at trace level, the source's and the repository's), the
    /// failure states and their messages, the source's description, the errors.
    static func expectNoLeak(_ texts: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for text in texts {
            #expect(!text.contains("s3cr3t"), "the token leaked into: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("the token from a file (trailing newline stripped) is sent, and appears in no log line or message")
    func fromFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.write("token", Self.token + "\n")
        try await Self.check(SecretHeader(name: "Authorization", path: path, origin: .file))
    }

    @Test("the token from a systemd credential (CRLF stripped) is sent, and appears in no log line or message")
    func fromCredential() async throws {
        let credentials = TemporaryDirectory()
        defer { credentials.remove() }
        let path = credentials.write("depot-token", Self.token + "\r\n")
        try await Self.check(SecretHeader(name: "Authorization", path: path, origin: .credential("depot-token")))
    }

    /// Loads with `secret` from a server that accepts the token once and then fails in every way it can,
    /// and checks the header it saw and everything depotd said.
    static func check(_ secret: SecretHeader) async throws {
        let logs = LogRecorder()
        try await withServer({ request in
            guard request.header("Authorization") == Self.token else { return .respond(status: 401) }
            switch request.method {
            case "GET" where request.uri == "/items": return .respond(status: 200, headers: [("ETag", #""e""#)], body: threeItems)
            case "DELETE": return .respond(status: 500)
            default: return .respond(status: 403)
            }
        }) { server in
            let source = try httpSource(server, logger: logs.logger()) { options in
                options.secretHeaders = [secret]
                options.headers = [try HeaderField(name: "X-Client", value: "depot-test")]
                options.deleteURL = try ItemURLTemplate(parsing: server.url("/items/{id}"))
            }
            let repository = Repository(source: source, logger: logs.logger()).running()
            var messages: [String] = [source.description]
            _ = try await repository.load().result.get()
            _ = try await repository.load().result.get()
            if case .failure(let error) = await repository.remove(id: "1").result { messages.append(error.message) }
            let other = try httpSource(server, "/other", logger: logs.logger()) { $0.secretHeaders = [secret] }
            await repository.replaceSource(other, idField: "id").result.failureMessage.map { messages.append($0) }

            let seen = server.requests.value
            #expect(seen.count == 4)
            #expect(seen.allSatisfy { $0.header("Authorization") == Self.token })
            #expect(seen.prefix(3).allSatisfy { $0.header("X-Client") == "depot-test" })
            #expect(messages.count == 3)
            #expect(!logs.all.isEmpty)
            expectNoLeak(logs.all + messages)
        }
    }

    @Test("a missing, empty or multi-line secret file fails the request, naming the file but not its content")
    func badFiles() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let empty = directory.write("empty", "\n")
        let twoLines = directory.write("two", Self.token + "\nX-Injected: yes\n")
        let missing = directory.file("missing")
        try await withServer({ _ in .respond(status: 200, body: "[]") }) { server in
            for (path, problem) in [
                (missing, "its file \(missing) cannot be read: cannot read \(missing): No such file or directory"),
                (empty, "its file \(empty) is empty"),
                (twoLines, "its file \(twoLines) holds more than one line, or a control character; put the header's value alone on one line"),
            ] {
                let source = try httpSource(server) { $0.secretHeaders = [try SecretHeader(name: "Authorization", path: path, origin: .file)] }
                let error = try #require(await #expect(throws: SourceError.self) { _ = try await source.fetchItems() })
                #expect(error.message.hasPrefix("cannot send the header Authorization: \(problem); "))
                Self.expectNoLeak([error.message])
            }
            #expect(server.requests.value.isEmpty)
        }
    }

    @Test("a credential that is not there says how to give it to the service")
    func missingCredential() async throws {
        try await withServer({ _ in .respond(status: 200, body: "[]") }) { server in
            let secret = try SecretHeader(name: "Authorization", path: "/nonexistent/creds/depot-token", origin: .credential("depot-token"))
            let error = try #require(
                await #expect(throws: SourceError.self) { _ = try await httpSource(server) { $0.secretHeaders = [secret] }.fetchItems() })
            #expect(error.message.hasSuffix("; give the service LoadCredential=depot-token:/path/to/file holding the header's value"))
        }
    }

    @Test("header names must be tokens and values one line; the message never quotes a value")
    func headerChecks() {
        #expect(throws: SettingProblem(#""Bad Name" is not a header name; use letters, digits and -, as in Authorization"#)) {
            try HeaderField(name: "Bad Name", value: "x")
        }
        #expect(throws: SettingProblem("has a line break or control character in its value; a header value must be one line")) {
            try HeaderField(name: "X-Ok", value: "secret\r\nX-Injected: 1")
        }
    }
}

extension Result where Failure == RepositoryError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
