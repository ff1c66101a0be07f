import ArgumentParser
import Testing

@testable import DepotControl

@Suite("GlobalArguments: options before the subcommand")
struct GlobalArgumentsTests {
    @Test(
        "leading global options move behind the subcommand's arguments, before a --",
        arguments: [
            (["--socket", "/s", "state"], ["state", "--socket", "/s"]),
            (["--json", "--socket=/s", "get", "25"], ["get", "25", "--json", "--socket=/s"]),
            (["--json", "pipeline", "list"], ["pipeline", "list", "--json"]),
            (["--socket", "/s", "call", "remove", "--", "--json"], ["call", "remove", "--socket", "/s", "--", "--json"]),
            (["state", "--json"], ["state", "--json"]),
            (["state", "--socket", "/s", "--json"], ["state", "--socket", "/s", "--json"]),
            (["-n", "books", "state"], ["state", "-n", "books"]),
            (["--timeout", "2s", "--json", "watch"], ["watch", "--timeout", "2s", "--json"]),
            (["--socket"], ["--socket"]),
            (["--json"], ["--json"]),
            (["--frob", "state"], ["--frob", "state"]),
            ([], []),
        ])
    func hoisted(arguments: [String], expected: [String]) {
        #expect(GlobalArguments.hoisted(arguments) == expected)
    }

    @Test("every option every command shares may come first: the table names each of ConnectionOptions' options")
    func tableCoversConnectionOptions() throws {
        let help = ConnectionOptions.helpMessage(columns: 200)
        let words = help.split { " \n,()".contains($0) }
        let names = Set(words.filter { $0.hasPrefix("-") && $0.dropFirst().first.map { $0 == "-" || $0.isLetter } == true }.map(String.init))
        #expect(names.subtracting(["-h", "--help"]) == Set(GlobalArguments.options.keys), "\(help)")
    }
}
