import DepotClient
import DepotJSON
import DepotSchema
import DepotTestSupport
import DepotWire
import Foundation
import Testing

/// The socket protocol as a contract: the real depotd answers what rpc-schema/openrpc.json lists, nothing
/// more or less, serves the document itself, and every message it sends is checked against it.
@Suite("depotd and rpc-schema/openrpc.json: the same methods, the document served, every message checked")
struct ProtocolContractTests {
    static var document: OpenRPCDocument { ProtocolLedger.document }

    @Test("depotd answers every method the document lists, and no other: -32601 names exactly the document's methods")
    func sameMethods() async throws {
        try await withDaemon(["--no-initial-load"]) { daemon in
            let connection = try await daemon.connect()
            for name in Self.document.calledMethodNames {
                do {
                    _ = try await connection.call(name, params: [:])
                } catch let DepotClientError.remote(error) {
                    #expect(error.code != -32601, "\(name) is in the document but depotd does not know it")
                }
            }
            let unknown = await #expect(throws: DepotClientError.self) { try await connection.call("not-in-the-document") }
            guard case .remote(let error)? = unknown else { return }
            // The -32601 message lists every method depotd has (sorted): it must be the document's list.
            let listed = Self.document.calledMethodNames.sorted().joined(separator: ", ")
            #expect(error.message == "Method not found: \"not-in-the-document\"; this server has \(listed)")
        }
    }

    @Test("rpc.discover answers the document built from rpc-schema/openrpc.json, member for member")
    func discover() async throws {
        let file = try JSONParser.parse(try RepositoryFiles.text("rpc-schema/openrpc.json"))
        try await withDaemon(["--no-initial-load"]) { daemon in
            let answer = try await daemon.connect().call("rpc.discover")
            #expect(answer == file)
            #expect(answer.jsonText == file.jsonText, "members in the file's order")
        }
    }

    @Test("depotctl schema prints the document as the file has it; --json prints it on one line")
    func depotctlSchema() async throws {
        let file = try RepositoryFiles.text("rpc-schema/openrpc.json")
        // No daemon: the document is the one built into depotctl.
        let pretty = try await CommandResult.run(Binaries.depotctl, ["schema"], environment: [:])
        #expect(pretty.status == 0, "\(pretty.standardError)")
        #expect(pretty.standardOutput == file)
        let compact = try await CommandResult.run(Binaries.depotctl, ["schema", "--json"], environment: [:])
        #expect(compact.status == 0, "\(compact.standardError)")
        #expect(compact.standardOutput == (try JSONParser.parse(file)).jsonText + "\n")
    }

    @Test("every example in the document, sent to a daemon holding the demo collection, gets an answer the document allows")
    func examplesAgainstTheDaemon() async throws {
        try await DepotctlTests.withDemo { daemon in
            let connection = try await daemon.connect()
            let before = daemon.ledger.checkedCount
            var answered = 0
            for method in Self.document.methods where !method.isNotification {
                for example in method.examples {
                    do {
                        _ = try await connection.call(method.name, params: example.params)
                    } catch let DepotClientError.remote(error) {
                        // An example may meet a state it was not written for (unsubscribe of "s1"); the answer is
                        // still checked, and must not be a complaint about the example's params.
                        #expect(error.code != -32602, "\(method.name), example \(example.name): \(error.message)")
                    }
                    answered += 1
                }
            }
            #expect(answered >= Self.document.calledMethodNames.count)
            #expect(daemon.ledger.checkedCount >= before + answered, "every answer went through the check")
            #expect(daemon.ledger.violations == [])
        }
    }

    @Test("a session's every answer and notification is checked; the check catches a message the document does not allow")
    func checksCatch() async throws {
        // No start-up load: the subscription starts idle and the load is the first, so it publishes loading and
        // success (a load may otherwise join a refresh of the file that publishes nothing, as it should).
        try await withDaemon(["--source", Daemon.writeItems(3, in: TemporaryDirectory()), "--no-initial-load"]) { daemon in
            let connection = try await daemon.connect()
            let subscription = try await connection.subscribe()
            _ = try await connection.call("load")
            _ = try await connection.call("remove", params: ["id": "2", "optimistic": true])
            var seen = 0
            for await change in subscription {
                seen += 1
                if change.state["status"] == "success", change.state["items"]?.arrayValue?.count == 2 { break }
            }
            #expect(seen >= 3)
            #expect(daemon.ledger.checkedCount >= 3 + seen)
            #expect(daemon.ledger.violations == [])
        }

        // The same checker, given messages depotd must never send.
        let ledger = ProtocolLedger()
        let checker = ledger.checker()
        checker.sent(Array(#"{"jsonrpc":"2.0","id":1,"method":"state"}"#.utf8) + [10])
        checker.received(Array(#"{"jsonrpc":"2.0","id":1,"result":{"seq":1,"epoch":"e1","status":"success"}}"#.utf8))
        checker.received(Array(#"{"jsonrpc":"2.0","method":"stateChanged","params":{"subscription":"s1","state":{"seq":"1","status":"idle"}}}"#.utf8))
        checker.received(Array("not json".utf8))
        checker.received(Array(#"{"jsonrpc":"2.0","id":9,"result":true}"#.utf8))
        #expect(ledger.checkedCount == 4)
        #expect(ledger.violations.count == 4)
        #expect(ledger.violations.first?.contains(#"/result: missing required member "origin""#) == true, "\(ledger.violations)")
        #expect(ledger.violations.dropFirst().first?.contains("/params/state/seq: must be an integer") == true, "\(ledger.violations)")
        withKnownIssue("each violation is a test issue") {
            ledger.expectConformance()
        }
    }
}

extension ProtocolContractTests {
    @Test("the README's error catalogue has exactly the codes the document lists, and each method's errors appear under it")
    func errorCatalogue() throws {
        let readme = try RepositoryFiles.text("README.md")
        let start = try #require(readme.range(of: "**Errors.**"), "README.md has an **Errors.** catalogue")
        let rows = readme[start.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("| Code") }.dropFirst(2).prefix { $0.hasPrefix("|") }
        var methodsByCode: [Int: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let code = try #require(Int(cells[0]), "a row of the catalogue starts with its code: \(row)")
            methodsByCode[code] = cells[2]
        }
        var documented = Set(OpenRPCError.jsonRPCCodes)
        for method in Self.document.methods {
            for error in method.errors {
                documented.insert(error.code)
                #expect(methodsByCode[error.code]?.contains("`\(method.name)`") == true, "README: \(error.code) should name \(method.name)")
            }
        }
        if case .object(let errors)? = Self.document.json["components"]?["errors"] {
            documented.formUnion(errors.compactMap { $0.value["code"]?.numberValue?.intValue })
        }
        #expect(Set(methodsByCode.keys) == documented)
    }
}
