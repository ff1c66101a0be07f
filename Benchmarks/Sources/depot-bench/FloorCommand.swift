import ArgumentParser
import DepotBenchmarks

#if canImport(Glibc)
import Glibc
#endif

/// The floor, a reference server `run` starts: fans the same bytes out to K readers with no JSON work.
struct FloorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor",
        abstract: "Serve the floor on a Unix socket (started by `run`; lines: subscribe, publish SEQ BYTES, request BYTES)."
    )

    @Option(help: "The Unix socket to listen on; it must not exist.")
    var socket: String

    func run() throws {
        // `run` ignores SIGINT and SIGTERM (it stops its servers itself), and a child inherits that: undo it.
        signal(SIGTERM, SIG_DFL)
        signal(SIGINT, SIG_DFL)
        try FloorServer(socketPath: socket).run()
    }
}
