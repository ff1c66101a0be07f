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
            (["--socket"], ["--socket"]),
            (["--json"], ["--json"]),
            (["--frob", "state"], ["--frob", "state"]),
            ([], []),
        ])
    func hoisted(arguments: [String], expected: [String]) {
        #expect(GlobalArguments.hoisted(arguments) == expected)
    }
}
