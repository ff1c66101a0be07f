import ArgumentParser
import DepotJSON
import DepotWire

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load the collection from the source again, and print the state it produced.",
        discussion: """
            --strategy upToDateWithFallback (the default) asks the source and, if it fails, serves the cached list \
            marked stale; fastestAvailable answers from memory or the cache when they have items; \
            returnMultipleTimes publishes the cached list at once, then the source's. When the source failed and the \
            cached list stands in, stderr says why and depotctl exits 4.
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Option(help: ArgumentHelp("fastestAvailable, upToDateWithFallback or returnMultipleTimes.", valueName: "strategy"))
    var strategy: String?

    @Flag(help: "Have the state printed with --json carry the items, not only their count.")
    var items = false

    /// Checked against the protocol's document, which lists the strategies.
    func validate() throws {
        try ParamsCheck.check(LoadRequest.method, strategy.map { ["strategy": .string($0)] })
    }

    func run() async throws {
        let request = LoadRequest(
            strategy: try strategy.map { name in
                guard let strategy = LoadStrategy(rawValue: name) else {
                    throw ValidationError("--strategy \(name) is not one of \(LoadStrategy.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return strategy
            }, items: items)
        let state = try await RemoteCall(options: options).run(request).json
        Output.line(options.json ? state.jsonText : "loaded · " + StateFormatter.statusLine(state))
        // The source failed and the cached list stands in: said on stderr, and by the exit status, so a script
        // that loads knows it did not reach the source.
        if state[StateMember.stale] == true {
            let reason = state[StateMember.staleReason]?.stringValue ?? "the source failed"
            Output.error("serving the cached list, marked stale: \(reason)")
            throw ExitCode(ExitStatus.notFresh)
        }
    }
}
